"""Incremental add (issue 23): a full build of the ingest, passages, embed and kg stages, then
the same stages after adding 1 % of the documents (``--percent``: 10 for 10 %), on warm
caches (files parsed, passage vectors, sentence splits, entity mentions, per-collection
graphs: ``ingest.parse_cache``, ``passages.cache_dir``, ``embed.encoders.*.cache_dir``,
``kg.variants.*.linker.cache_dir``, ``kg.cache_dir``, all in ``--work``); then the documents
removed again. The target: the added 1 % costs at most 5 % of the full build.

Two corpora of real bundled records:

- ``--mode folder`` (default): a documents folder of ``--documents`` Markdown files, each a
  bundled paragraph (``# title`` and its text: HotpotQA and 2Wiki contexts, MuSiQue
  paragraphs, dev and train, distinct titles), with 10 HotpotQA questions; every 100th file
  is held back and added. A folder is one collection, so its KG is built again whole: the
  caches save the parsing, encoding and linking of the other 99 %.
- ``--mode sources``: the three bundled dev sources, ``--questions`` questions each, then 1 %
  more questions per source (their documents added). Each question is its own collection;
  with ``--negatives 0`` a collection is its question's own documents and the new questions'
  collections alone are built. With negatives (base: 20) the pool every collection draws
  from grows, so every collection's negatives change and all are built again, unless
  ``--negative-pool N`` (``ingest.negative_pool``) keeps each question's pool to the first N
  questions' documents and those before it: then the new questions' collections alone are
  built.

- ``--mode ask``: the same folder asked as an analyst does, ``kedro run --env ask`` with one
  question a run (conf/ask, the embedded reader, caches in ``--work``): a cold run, the
  unchanged folder with a new question, 1 % of the files added with a new question, and
  removed again with a new question. Printed: each run's wall time (the process: imports,
  model loading and the reader's answer included), its CPU seconds (every thread: on a loaded
  machine the wall time follows the other jobs, the CPU seconds much less) and its slowest
  nodes (from the log's timestamps). The target: an unchanged folder answers a new question
  in at most 20 s (``--documents 1011``: 1,000 files, 11 held back).

Each stage runs the project's own nodes (``kgp_kedro.pipelines.in_memory``), with the
parameters of conf/base (run it from the project root), the KG variants of ``kg.variants``.

    nice .venv/bin/python benchmarks/bench_incremental.py [--mode folder|sources|ask]
        [--documents 1500] [--questions 100] [--percent 1] [--negatives 0] [--negative-pool 50]
        [--work data/09_bench/incremental]

Each build runs in a process of its own (as a ``kedro run`` does). Prints, per stage, for
the stages together and for the whole process (imports and model loading included), wall and
process-CPU seconds of the full build, the incremental add and the removal, the added cost as
a share of the full build, with the CPU and the load average.
"""
from __future__ import annotations

import argparse
import copy
import json
import logging
import os
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "data" / "01_raw"
DEV = {"hotpotqa": RAW / "hotpotqa" / "hotpot_dev_distractor_v1_sample300.json",
       "musique": RAW / "musique" / "musique_ans_v1.0_dev_sample181.jsonl",
       "2wikimultihopqa": RAW / "2wikimultihopqa" / "dev_sample103.json"}
TRAIN = [RAW / "hotpotqa" / "hotpot_train_v1.1_sample100.json",
         RAW / "musique" / "musique_ans_v1.0_train_sample100.jsonl",
         RAW / "2wikimultihopqa" / "train_sample500.json"]
STAGES = ("ingest", "passages", "embed", "kg")
RESULT = "bench_incremental result: "


def records(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    return ([json.loads(line) for line in text.splitlines() if line.strip()]
            if path.suffix == ".jsonl" else json.loads(text))


def paragraphs() -> list[tuple[str, str]]:
    """Every bundled paragraph ``(title, text)``, dev and train, first one of each title."""
    seen: dict[str, str] = {}
    for path in [*DEV.values(), *TRAIN]:
        for rec in records(path):
            if "paragraphs" in rec:   # MuSiQue
                items = [(p["title"], p["paragraph_text"]) for p in rec["paragraphs"]]
            else:                      # HotpotQA, 2Wiki: [title, sentences]
                items = [(t, "".join(s)) for t, s in rec["context"]]
            for title, text in items:
                if text.strip() and title not in seen:
                    seen[title] = text.strip()
    return list(seen.items())


def make_folder(folder: Path, n: int, percent: int = 1) -> list[Path]:
    """``n`` paragraphs as Markdown files and 10 questions; returns every ``100 / percent``-th
    file (held back: the ``percent`` % added later), moved out of the folder."""
    docs = paragraphs()
    if n > len(docs):
        raise SystemExit(f"--documents {n}: the bundled files hold {len(docs)} paragraphs")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for i, (title, text) in enumerate(docs[:n]):
        (folder / f"{i:05d}.md").write_text(f"# {title}\n\n{text}\n", encoding="utf-8")
    questions = records(DEV["hotpotqa"])[:10]
    (folder / "questions.jsonl").write_text("".join(
        json.dumps({"id": q["_id"], "question": q["question"], "answer": q["answer"]}) + "\n"
        for q in questions))
    held = folder.parent / "held_back"
    shutil.rmtree(held, ignore_errors=True)
    held.mkdir()
    moved = []
    for file in sorted(folder.glob("*.md"))[::max(1, round(100 / percent))]:
        moved.append(held / file.name)
        file.rename(moved[-1])
    return moved


def parameters(args, work: Path) -> dict:
    from kgp_kedro.pipelines.parameter_tree import complete_parameters
    from kgp_kedro.pipelines.parameters import project_parameters

    raw = copy.deepcopy(project_parameters())
    raw["ingest"]["parse_cache"] = str(work / "cache" / "parsed_files")
    raw["passages"]["cache_dir"] = str(work / "cache" / "sentences")
    for encoder in raw["embed"]["encoders"].values():
        encoder["cache_dir"] = str(work / "cache" / "embeddings")
    for variant in raw["kg"]["variants"].values():
        if variant.get("builder") == "entity":
            variant.setdefault("linker", {})["cache_dir"] = str(work / "cache" / "entities")
    raw["kg"]["cache_dir"] = str(work / "cache" / "kg")
    if args.negatives is not None:
        raw["ingest"]["negatives_per_question"] = args.negatives
    raw["ingest"]["negative_pool"] = args.negative_pool
    return complete_parameters(raw)


def sources(args, work: Path, added: bool) -> list[dict]:
    if args.mode == "folder":
        return [{"dataset": "documents", "path": str(work / "folder"), "limit": None}]
    extra = max(1, round(args.questions * args.percent / 100)) if added else 0
    return [{"dataset": d, "path": str(p), "limit": args.questions + extra}
            for d, p in DEV.items()]


def run_stages(raw: dict) -> dict[str, tuple[float, float]]:
    """Each stage's nodes run in order on the previous stages' outputs: ``stage -> (wall s,
    process-CPU s)`` (a model is loaded in the stage that first needs it), and
    ``_counts``: the passages and collections."""
    from kgp_kedro.pipelines.chains import build_pipelines
    from kgp_kedro.pipelines.in_memory import run_in_memory

    chains = build_pipelines(raw)
    data: dict = {}
    took = {}
    for i, stage in enumerate(STAGES):
        pipe = chains[stage] - chains[STAGES[i - 1]] if i else chains[stage]
        start, cpu = time.perf_counter(), time.process_time()
        data.update(run_in_memory(pipe, raw, inputs={k: data[k] for k in pipe.inputs()
                                                     if k in data}))
        took[stage] = (time.perf_counter() - start, time.process_time() - cpu)
    took["_counts"] = (len(data["passages"]), data["passages"]["collection_id"].nunique())
    return took


def step(args, work: Path, added: bool) -> None:
    """One build (a process of its own, as a ``kedro run`` is): its stages' timings as JSON on
    a line of stdout (:data:`RESULT`)."""
    raw = parameters(args, work)
    raw["ingest"]["sources"] = sources(args, work, added)
    took = run_stages(raw)
    print(RESULT + json.dumps(took), flush=True)


LOGGING = """version: 1
disable_existing_loggers: false
formatters:
  timed: {format: "%(asctime)s.%(msecs)03d %(name)s %(message)s", datefmt: "%Y-%m-%d %H:%M:%S"}
handlers:
  console: {class: logging.StreamHandler, formatter: timed, stream: ext://sys.stdout}
loggers:
  kedro: {level: INFO}
  kgp_kedro: {level: INFO}
root: {handlers: [console], level: INFO}
"""
RUNNING, DONE = "Running node: ", "Completed node: "


def node_seconds(log: str) -> dict[str, float]:
    """Each node's seconds (its namespaced name), from its ``Running node:`` line to its
    ``Completed node:`` line: its inputs' loading and outputs' saving included."""
    seconds: dict[str, float] = {}
    started = None
    for line in log.splitlines():
        try:
            when = datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S.%f")
        except ValueError:
            continue
        if RUNNING in line:
            started = when
        elif DONE in line and started is not None:
            name = line.split(DONE, 1)[1].strip()
            seconds[name] = seconds.get(name, 0.0) + (when - started).total_seconds()
            started = None
    return seconds


def ask_questions() -> list[str]:
    """Four bundled HotpotQA dev questions for the ask runs, none with a comma (Kedro's
    ``--params`` splits at commas)."""
    return [q["question"] for q in records(DEV["hotpotqa"]) if "," not in q["question"]][:4]


def ask_cache_params(work: Path) -> list[str]:
    """An ask run's ``--params`` over the folder ``work / "folder"`` with every cache under
    ``work / "cache"``."""
    cache = work / "cache"
    return [f"ask.folder={work / 'folder'}", f"ingest.parse_cache={cache / 'parsed_files'}",
            f"embed.encoders.minilm.cache_dir={cache / 'embeddings'}",
            f"kg.cache_dir={cache / 'kg'}", f"llm.cache={cache / 'llm.sqlite'}",
            f"retrieve.methods.kgp.linker.cache_dir={cache / 'entities'}",
            f"passages.cache_dir={cache / 'sentences'}"]


def ask_env(work: Path) -> dict[str, str]:
    """The environment of an ask run's process: offline, no telemetry, Kedro logging to stdout
    with timestamps (:data:`LOGGING`, written to ``work / "logging.yml"``), no ``KEDRO_ENV``."""
    config = work / "logging.yml"
    config.write_text(LOGGING)
    env = dict(os.environ, KEDRO_DISABLE_TELEMETRY="1", HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", KEDRO_LOGGING_CONFIG=str(config), COLUMNS="200")
    env.pop("KEDRO_ENV", None)
    return env


def children_cpu_seconds() -> float:
    """User + system CPU seconds of this process's finished children."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def ask_mode(args, work: Path) -> None:
    """``--mode ask`` (module docstring): four ``kedro run --env ask``, one question each."""
    from kgp_kedro.reporting.measurements import cpu_model

    shutil.rmtree(work / "cache", ignore_errors=True)   # the first run starts cold
    work.mkdir(parents=True, exist_ok=True)
    held = make_folder(work / "folder", args.documents, args.percent)
    asked = ask_questions()
    params = [*ask_cache_params(work), *args.params]
    env = ask_env(work)

    def run(label: str, question: str) -> tuple[float, float, float, dict[str, float]]:
        load = os.getloadavg()[0]
        start, begin = time.perf_counter(), children_cpu_seconds()
        done = subprocess.run([sys.executable, "-m", "kedro", "run", "--env", "ask", "--params",
                               ",".join([*params, f"ask.question={question}"])], cwd=ROOT,
                              env=env, capture_output=True, text=True)
        wall, used = time.perf_counter() - start, children_cpu_seconds() - begin
        if done.returncode:
            sys.exit(f"{label}: kedro run failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        log = done.stdout + done.stderr
        if args.log:
            (work / f"{label.replace(' ', '_').replace('%', 'pc')}.log").write_text(log)
        print(f"{label}: {wall:.1f} s, {used:.1f} CPU s (load {load:.1f})", file=sys.stderr,
              flush=True)
        return wall, used, load, node_seconds(log)

    runs = {"cold": run("cold", asked[0]),
            "unchanged": run("unchanged", asked[1])}
    share = f"{args.percent} %"
    for file in held:   # the share added
        file.rename(work / "folder" / file.name)
    runs[f"add {share}"] = run(f"add {share}", asked[2])
    for file in held:   # and removed again
        (work / "folder" / file.name).rename(file)
    runs[f"remove {share}"] = run(f"remove {share}", asked[3])
    print(f"\nkedro run --env ask, one new question a run, a folder of "
          f"{args.documents - len(held)} files ({len(held)} added, then removed); "
          f"{cpu_model()}, {os.cpu_count()} CPUs")
    print("run: wall (the process, the answer included), its CPU seconds (user + system, all "
          "threads), the 1-min load at its start; its slowest nodes (wall)")
    for label, (wall, used, load, nodes) in runs.items():
        slowest = sorted(nodes.items(), key=lambda kv: -kv[1])[:args.top]
        print(f"{label:12} {wall:7.1f} s {used:7.1f} CPU s  load {load:4.1f}  "
              + ", ".join(f"{name} {sec:.1f} s" for name, sec in slowest))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["folder", "sources", "ask"], default="folder")
    parser.add_argument("--documents", type=int, default=1500)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--percent", type=int, default=1,
                        help="the share of the files (or questions) added, then removed: 1 or "
                             "10 (every 100th or 10th file held back)")
    parser.add_argument("--negatives", type=int, default=None,
                        help="ingest.negatives_per_question (default: conf/base's)")
    parser.add_argument("--negative-pool", type=int, default=None,
                        help="ingest.negative_pool (default null: every other question's "
                             "documents, so added questions redraw every collection)")
    parser.add_argument("--work", type=Path, default=ROOT / "data" / "09_bench" / "incremental")
    parser.add_argument("--params", nargs="*", default=[],
                        help="--mode ask: more kedro --params (key=value)")
    parser.add_argument("--top", type=int, default=6, help="--mode ask: slowest nodes shown")
    parser.add_argument("--log", action="store_true", help="--mode ask: keep each run's log")
    parser.add_argument("--step", choices=["base", "added"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    work = args.work.resolve()
    from kgp_kedro.reporting.measurements import cpu_model

    if args.mode == "ask":
        ask_mode(args, work)
        return
    if args.step:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                            format="%(asctime)s %(name)s %(message)s")
        step(args, work, args.step == "added")
        return
    shutil.rmtree(work / "cache", ignore_errors=True)   # the full build starts cold
    work.mkdir(parents=True, exist_ok=True)
    held = (make_folder(work / "folder", args.documents, args.percent)
            if args.mode == "folder" else [])

    def run(label: str, added: bool) -> dict:
        load = os.getloadavg()[0]
        start = time.perf_counter()
        done = subprocess.run([sys.executable, __file__, *sys.argv[1:], "--step",
                               "added" if added else "base"], stdout=subprocess.PIPE,
                              text=True, check=True)
        lines = done.stdout.splitlines()   # the step's log (Kedro logs to stdout), then its result
        sys.stderr.write("".join(f"{line}\n" for line in lines if not line.startswith(RESULT)))
        took = json.loads(next(line for line in lines if line.startswith(RESULT))[len(RESULT):])
        took["_process"] = (time.perf_counter() - start, 0.0)
        took["_load"] = (load, os.getloadavg()[0])
        print(f"{label}: {took['_counts'][0]} passages, {took['_counts'][1]} collections, "
              f"{took['_process'][0]:.1f} s", file=sys.stderr, flush=True)
        return took

    share = f"{args.percent} %"
    runs = {"full": run("full build", False)}
    for file in held:   # the share added
        file.rename(work / "folder" / file.name)
    runs[f"add {share}"] = run(f"add {share}", True)
    for file in held:   # and removed again
        (work / "folder" / file.name).rename(file)
    runs[f"remove {share}"] = run(f"remove {share}", False)

    what = (f"a documents folder of {args.documents - len(held)} files, {len(held)} added"
            if args.mode == "folder" else
            f"3 bundled dev sources x {args.questions} questions, {share} more added")
    print(f"\n{what}; {cpu_model()}, {os.cpu_count()} CPUs")
    print(f"{'stage':10}" + "".join(f"{name:>24}" for name in runs) + f"{'added/full':>12}")
    for stage in [*STAGES, "stages", "process"]:
        cells, walls = [], []
        for took in runs.values():
            if stage == "process":   # the whole process: imports and model loading included
                wall, cpu = took["_process"][0], None
            else:
                parts = STAGES if stage == "stages" else [stage]
                wall, cpu = (sum(took[s][0] for s in parts), sum(took[s][1] for s in parts))
            walls.append(wall)
            cells.append(f"{wall:8.1f} s" + (f" ({cpu:6.1f} CPU)" if cpu is not None
                                             else " " * 13))
        print(f"{stage:10}" + "".join(f"{c:>24}" for c in cells)
              + f"{100 * walls[1] / max(walls[0], 1e-9):11.1f}%")
    print("passages / collections: " + ", ".join(
        f"{name} {t['_counts'][0]} / {t['_counts'][1]}" for name, t in runs.items()))
    print("load average (1 min) at start / end: " + ", ".join(
        f"{name} {t['_load'][0]:.1f} / {t['_load'][1]:.1f}" for name, t in runs.items()))


if __name__ == "__main__":
    main()
