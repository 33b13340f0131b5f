"""What a question over an unchanged documents folder costs (issue 38): ``kedro run --env ask``
over a folder of ``--documents`` Markdown files (bench_incremental.py's folder: bundled
paragraphs, every 100th file held back), first with every cache empty (the full build), then
again with one new question and nothing changed; then the notebook's way
(notebooks/ask.ipynb): the run's outputs loaded once into an ask session
(:func:`kgp_kedro.pipelines.ask.session.open_session`), asked two more questions.

Each run is a process of its own (as ``kedro run`` is), the project's Kedro session with a
timing hook: every node's wall and CPU seconds (user + system of the process, every thread;
its inputs' loading and outputs' saving apart), the process's total (imports, session and
catalog included) and the reader's call (the answer's ``latency_ms``). Wall seconds follow the
machine's other jobs; CPU seconds much less: both are printed, with the CPU model and the load.
The targets: the unchanged re-run answers in at most 20 s, the notebook's further question in at
most 10 s (reader included, 2 cores).

    nice -n 19 .venv/bin/python benchmarks/bench_ask_question.py [--documents 1011]
        [--work data/09_bench/ask_question] [--top 8]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench_incremental import (ask_cache_params, ask_env, ask_questions, children_cpu_seconds,
                               make_folder)
from kedro.framework.hooks import hook_impl

ROOT = Path(__file__).resolve().parents[1]
RESULT = "bench_ask_question result: "


def cpu_seconds() -> float:
    """User + system CPU seconds of this process, every thread."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def now() -> tuple[float, float]:
    return time.perf_counter(), cpu_seconds()


def since(start: tuple[float, float]) -> list[float]:
    """Wall and CPU seconds since ``start`` (:func:`now`)."""
    end = now()
    return [end[0] - start[0], end[1] - start[1]]


class NodeTimes:
    """A Kedro hook: each node's ``(wall, CPU)`` seconds, its datasets' loading and saving
    apart, and the reader's call of the ask node's answers."""

    def __init__(self) -> None:
        self.nodes: dict[str, list[float]] = {}
        self.io: dict[str, list[float]] = {}
        self.reader: dict[str, float] = {}
        self._node = self._data = (0.0, 0.0)

    def _add(self, table: dict, name: str, took: list[float]) -> None:
        table[name] = [a + b for a, b in zip(table.get(name, [0.0, 0.0]), took)]

    @hook_impl
    def before_node_run(self, node) -> None:
        self._node = now()

    @hook_impl
    def after_node_run(self, node, outputs) -> None:
        self._add(self.nodes, node.name, since(self._node))
        answers = outputs.get("ask_answers")
        if answers is not None and len(answers):
            self.reader = {"latency_s": float(answers["latency_ms"].sum()) / 1000,
                           "prompt_tokens": int(answers["prompt_tokens"].sum()),
                           "completion_tokens": int(answers["completion_tokens"].sum())}

    @hook_impl
    def before_dataset_loaded(self, dataset_name) -> None:
        self._data = now()

    @hook_impl
    def after_dataset_loaded(self, dataset_name) -> None:
        self._add(self.io, f"load {dataset_name}", since(self._data))

    @hook_impl
    def before_dataset_saved(self, dataset_name) -> None:
        self._data = now()

    @hook_impl
    def after_dataset_saved(self, dataset_name) -> None:
        self._add(self.io, f"save {dataset_name}", since(self._data))


def run_params(work: Path, question: str) -> dict:
    """The run's ``--params``: the folder, the question, every cache under ``work``."""
    from omegaconf import OmegaConf

    return OmegaConf.to_container(OmegaConf.from_dotlist(
        [*ask_cache_params(work), f"ask.question={question}"]))


def kedro_step(work: Path, question: str) -> dict:
    """One ``kedro run --env ask`` in this process, timed node by node."""
    from kedro.framework.project import settings
    from kedro.framework.session import KedroSession
    from kedro.framework.startup import bootstrap_project

    bootstrap_project(ROOT)
    times = NodeTimes()
    settings.set("HOOKS", (*settings.HOOKS, times))
    with KedroSession.create(ROOT, env="ask", runtime_params=run_params(work, question)) as s:
        s.run()
    return {"nodes": times.nodes, "io": times.io, "reader": times.reader}


def notebook_step(work: Path, questions: list[str]) -> dict:
    """The notebook's session: the run's outputs loaded (as notebooks/ask.ipynb loads them),
    then each question asked; each part's wall and CPU seconds."""
    from kedro.framework.session import KedroSession
    from kedro.framework.startup import bootstrap_project

    from kgp_kedro.pipelines.ask.session import open_session, session_datasets, session_method

    bootstrap_project(ROOT)
    took: dict = {}
    start = now()
    with KedroSession.create(ROOT, env="ask", runtime_params=run_params(work, questions[0])) as s:
        context = s.load_context()
        catalog = context.catalog
        method = session_method(catalog, context.project_path)
        data = {name: catalog.load(name) for name in session_datasets(catalog, method)}
        took["load the run's outputs"] = since(start)
        start = now()
        session = open_session(catalog, data, method, context.project_path)
        took["open the session (encoder, reader)"] = since(start)
        for i, question in enumerate(questions):
            start = now()
            asked = session.ask(question)
            label = "first question" if i == 0 else "further question"
            took[label] = since(start)
            took[f"{label}: retrieval"] = [asked.retrieval_seconds, None]
            took[f"{label}: reader's call"] = [
                float(asked.answer["latency_ms"].iloc[0]) / 1000, None]
    return {"notebook": took}


def step(args, work: Path) -> None:
    """A child process: one step, its timings as JSON on a line of stdout (:data:`RESULT`)."""
    questions = json.loads(args.questions)
    out = (notebook_step(work, questions) if args.step == "notebook"
           else kedro_step(work, questions[0]))
    out["process_cpu"] = cpu_seconds()
    print(RESULT + json.dumps(out), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=1011)
    parser.add_argument("--work", type=Path, default=ROOT / "data" / "09_bench" / "ask_question")
    parser.add_argument("--top", type=int, default=8, help="the slowest nodes shown")
    parser.add_argument("--keep-cache", action="store_true",
                        help="start from the caches of a previous run (no full build)")
    parser.add_argument("--step", choices=["run", "notebook"], help=argparse.SUPPRESS)
    parser.add_argument("--questions", help=argparse.SUPPRESS)
    args = parser.parse_args()
    work = args.work.resolve()
    if args.step:
        step(args, work)
        return
    from kgp_kedro.reporting.measurements import cpu_model, load_line

    if not args.keep_cache:
        shutil.rmtree(work / "cache", ignore_errors=True)   # the full build starts cold
    work.mkdir(parents=True, exist_ok=True)
    make_folder(work / "folder", args.documents)
    files = len(list((work / "folder").glob("*.md")))
    asked = ask_questions()   # one new question a run
    env = ask_env(work)

    def run(label: str, kind: str, questions: list[str]) -> dict:
        load = os.getloadavg()[0]
        start, begin = time.perf_counter(), children_cpu_seconds()
        done = subprocess.run([sys.executable, __file__, "--work", str(work), "--step", kind,
                               "--questions", json.dumps(questions)], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        wall, cpu = time.perf_counter() - start, children_cpu_seconds() - begin
        if done.returncode:
            sys.exit(f"{label}: failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        (work / f"{kind}_{len(runs)}.log").write_text(done.stdout + done.stderr)
        out = json.loads(next(line for line in done.stdout.splitlines()
                              if line.startswith(RESULT))[len(RESULT):])
        out.update(wall=wall, cpu=cpu, load=(load, os.getloadavg()[0]))
        print(f"{label}: {wall:.1f} s, {cpu:.1f} CPU s (load {load:.1f})", file=sys.stderr,
              flush=True)
        return out

    runs: dict[str, dict] = {}
    if not args.keep_cache:
        runs["full build"] = run("full build", "run", asked[:1])
    runs["unchanged, a new question"] = run("unchanged, a new question", "run", asked[1:2])
    runs["notebook"] = run("notebook", "notebook", asked[2:4])

    print(f"\nkedro run --env ask over a folder of {files} files, one new question a run; "
          f"{cpu_model()}, {load_line()}")
    print("wall s / CPU s (user + system, every thread of the process); load: 1-min average "
          "at the start / end")
    for label, out in runs.items():
        print(f"\n{label}: the process {out['wall']:.1f} s / {out['cpu']:.1f} CPU s "
              f"(load {out['load'][0]:.1f} / {out['load'][1]:.1f})")
        if "notebook" in out:
            for part, (wall, cpu) in out["notebook"].items():
                print(f"  {part:40} {wall:7.1f} s" + (f" / {cpu:6.1f} CPU s" if cpu is not None
                                                      else ""))
            continue
        nodes, io, reader = out["nodes"], out["io"], out["reader"]
        in_nodes = [sum(v[0] for v in nodes.values()), sum(v[1] for v in nodes.values())]
        in_io = [sum(v[0] for v in io.values()), sum(v[1] for v in io.values())]
        print(f"  nodes {in_nodes[0]:.1f} s / {in_nodes[1]:.1f} CPU s; loading and saving "
              f"datasets {in_io[0]:.1f} s / {in_io[1]:.1f} CPU s; the rest (imports, session, "
              f"catalog) {out['wall'] - in_nodes[0] - in_io[0]:.1f} s / "
              f"{out['process_cpu'] - in_nodes[1] - in_io[1]:.1f} CPU s")
        if reader:
            print(f"  the reader's call {reader['latency_s']:.1f} s ({reader['prompt_tokens']} "
                  f"prompt, {reader['completion_tokens']} generated tokens); the process "
                  f"without it {out['wall'] - reader['latency_s']:.1f} s")
        slowest = sorted([*nodes.items(), *io.items()], key=lambda kv: -kv[1][0])[:args.top]
        for name, (wall, cpu) in slowest:
            print(f"  {name:60} {wall:7.1f} s / {cpu:6.1f} CPU s")


if __name__ == "__main__":
    main()
