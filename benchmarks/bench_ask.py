"""How well `kedro run --env ask` answers a folder whose answers are known: the real-document
sets of ``benchmarks/data/real_docs`` (``--set dev``, ``--set holdout``, ``--set holdout2``:
the choosing pool every ask setting is chosen on; ``--set holdout3``: a used holdout, it has
judged two choices; ``--set holdout4``, ``--set holdout5``: the unseen sets, each judges a
choice once per decision, holdout5 kept fresh for when holdout4 is used), any folder with a
gold file (``--folder``, ``--gold``), or an analyst folder made from bundled 2Wiki / MuSiQue
train records (``--analyst 2wiki|musique``: ``analyst_folders.py``, ``analyst_musique.py``).

Each run of ``--runs`` is one ``kedro run --env ask`` over the folder's own questions with the
ask env's defaults and the run's ``ask.*`` options (``default``, or ``key=value`` pairs joined
by ``;``, e.g. ``grounding=none`` or ``passage_window=0;grounding=none``), every reply through
the committed store ``results/llm`` (a reply stored there is never asked again;
``--store-only``: none is asked at all). The answers are scored by
:mod:`kgp_kedro.evaluation.ask_scores`.

Written: ``<out>/runs.csv`` (one row per question and run) and ``<out>/tables.md`` (per run:
answerable correct, the reader's replies correct before the check, the right file and page
cited, answerable ones wrongly *not found*, *not found* recall and precision on the
unanswerable ones, EM / F1, replies repeating the instruction, seconds a question; correct per
kind; the CPU and its load).

Usage::

    python benchmarks/bench_ask.py --set dev --runs default grounding=none
    python benchmarks/bench_ask.py --set holdout --runs default
    python benchmarks/bench_ask.py --analyst musique --per-kind 8 \\
        --folder data/01_raw/analyst_musique --out results/ask/analyst_musique
    python benchmarks/bench_ask.py --folder DIR --gold DIR.gold.jsonl --out results/ask/NAME
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from kgp_kedro.config.sections import AskParams
from kgp_kedro.evaluation.ask_scores import Gold, score, summary
from kgp_kedro.prompts.ask import NOT_ANSWERED

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
REAL = ROOT / "benchmarks" / "data" / "real_docs"
RAW = ROOT / "data" / "01_raw"
ANSWERS = ROOT / "data" / "ask" / "08_reporting" / "ask_answers.parquet"
# an ask run's environment: no telemetry, no model hub
OFFLINE = {"KEDRO_DISABLE_TELEMETRY": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def real_gold(path: Path) -> dict[str, Gold]:
    """A real-document set's gold file: ``{id, kind, answers, evidence: [{file, page}]}``."""
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            g = json.loads(line)
            where = g.get("evidence") or []
            out[g["id"]] = Gold(g["kind"], g.get("answers") or [],
                                frozenset(e["file"] for e in where),
                                frozenset((e["file"], e["page"]) for e in where
                                          if e.get("page") is not None))
    return out


def analyst_gold(questions: list[dict]) -> dict[str, Gold]:
    """An analyst folder's questions as gold (its answer in its one supporting file)."""
    return {q["id"]: Gold(q["kind"], [] if q["kind"] == "none"
                          else [q["answer"], *q.get("answers", [])],
                          frozenset(q.get("supporting_docs") or []))
            for q in questions}


def make_analyst(source: str, folder: Path, per_kind: int, exclude: list[Path]) -> list[dict]:
    """An analyst folder made from the bundled train records of ``source``."""
    from benchmarks import analyst_folders, analyst_musique

    left_out = {json.loads(line)["id"] for path in exclude
                for line in path.read_text().splitlines() if line.strip()}
    if source == "2wiki":
        records = json.loads((RAW / "2wikimultihopqa" / "train_sample500.json").read_text())
        key, planner = "_id", analyst_folders.plan
    else:
        text = (RAW / "musique" / "musique_ans_v1.0_train_sample100.jsonl").read_text()
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
        key, planner = "id", analyst_musique.plan
    return analyst_folders.make_folder(folder, [r for r in records if r[key] not in left_out],
                                       per_kind, planner)


def run_ask(folder: Path, params: list[str]) -> tuple[pd.DataFrame, float]:
    """One ``kedro run --env ask`` over ``folder``'s own questions: its answers and wall s."""
    before = set(ANSWERS.glob("*/*.parquet"))
    env = dict(os.environ, **OFFLINE)
    start = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).with_name("kedro")), "run", "--env", "ask",
                           "--params", ",".join([f"ask.folder={folder}", *params])],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"kedro run failed:\n{done.stderr[-4000:]}")
    written = sorted(set(ANSWERS.glob("*/*.parquet")) - before)
    if not written:
        sys.exit(f"kedro run wrote no new {ANSWERS}")
    return pd.read_parquet(written[-1]), wall


def run_options(run: str) -> dict[str, str]:
    """A run's ``ask.*`` options: none for ``default``, else its ``key=value`` pairs."""
    if run == "default":
        return {}
    pairs = dict(item.split("=", 1) for item in run.split(";") if "=" in item)
    unknown = sorted(set(pairs) - set(AskParams.model_fields))
    if unknown or not pairs:
        sys.exit(f"--runs {run!r}: not ask options ({', '.join(unknown) or 'none given'})")
    return pairs


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def _share(value: float) -> str:
    return "-" if value != value else f"{value:.1%}"


def table(rows: pd.DataFrame, name: str, load: float, walls: dict[str, float]) -> str:
    """tables.md: one row per run, then correct per kind."""
    head = ["run", "questions", "answerable correct", "before the check", "file cited",
            "page cited", "wrongly not found", "none: not found", "not found precision",
            "EM", "F1", "repeats instruction", "s / question"]
    lines = [f"# `{name}`: ask answers scored", "",
             "Generated by `python benchmarks/bench_ask.py`; never edit by hand. "
             f"{_cpu()}, {os.cpu_count()} CPUs, load (1 min) {load:.1f} at the start.", "",
             "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    kinds = sorted(set(rows["kind"]) - {"none"})
    for run, scored in rows.groupby("run", sort=False):
        s = summary(scored)
        lines.append(
            f"| {run} | {s['questions']} ({s['answerable']} + {s['none']} none) | "
            f"{_share(s['correct'])} | {_share(s['raw_correct'])} | {_share(s['file_cited'])} | "
            f"{_share(s['page_cited'])} | {_share(s['wrongly_not_found'])} | "
            f"{_share(s['not_found_recall'])} | {_share(s['not_found_precision'])} | "
            f"{_share(s['em'])} | {_share(s['f1'])} | {s['repeats_instruction']} | "
            f"{s['seconds']:.1f} |")
    lines += ["", "Correct per kind of answerable question:", "",
              "| run | " + " | ".join(f"{k} ({int((rows['kind'] == k).sum() / rows['run'].nunique())})"
                                      for k in kinds) + " |",
              "|" + " --- |" * (len(kinds) + 1)]
    for run, scored in rows.groupby("run", sort=False):
        s = summary(scored)
        lines.append(f"| {run} | " + " | ".join(_share(s.get(f"correct_{k}", float("nan")))
                                                for k in kinds) + " |")
    lines += ["", "answerable correct: a gold answer inside an answer not marked *not found*; "
              "before the check: inside the reader's reply as it came; page cited: over the "
              "questions whose gold names a page; seconds: retrieval and the reader's call.", "",
              "Wall time of each run (s): " + ", ".join(f"{r} {w:.0f}" for r, w in walls.items())]
    return "\n".join(lines) + "\n"


def main() -> None:
    from benchmarks.make_real_docs import SETS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--set", choices=SETS)
    where.add_argument("--analyst", choices=["2wiki", "musique"])
    where.add_argument("--gold", type=Path, help="a gold .jsonl beside --folder")
    parser.add_argument("--folder", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--per-kind", type=int, default=12)
    parser.add_argument("--exclude", type=Path, nargs="+", default=[])
    parser.add_argument("--runs", nargs="+", default=["default"])
    parser.add_argument("--store-only", action="store_true")
    parser.add_argument("--params", default="", help="more kedro --params")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    if args.set:
        folder, gold = REAL / args.set, real_gold(REAL / f"{args.set}.gold.jsonl")
        out, name = args.out or ROOT / "results" / "ask" / f"real_{args.set}", f"real_{args.set}"
    elif args.analyst:
        if not args.folder or not args.out:
            sys.exit("--analyst needs --folder (made here) and --out")
        folder, out, name = args.folder, args.out, args.out.name
        gold = analyst_gold(make_analyst(args.analyst, folder, args.per_kind, args.exclude))
    else:
        if not args.folder or not args.out:
            sys.exit("--gold needs --folder and --out")
        folder, out, name = args.folder, args.out, args.out.name
        gold = real_gold(args.gold)
    extra = ["llm.store=results/llm", *(["llm.store_only=true"] if args.store_only else []),
             *[p for p in args.params.split(",") if p]]
    instruction = AskParams().instruction
    frames, walls = [], {}
    for run in args.runs:
        options = run_options(run)
        answers, walls[run] = run_ask(folder, extra + [f"ask.{k}={v}" for k, v in options.items()])
        scored = score(answers, gold, options.get("instruction", instruction),
                       NOT_ANSWERED).assign(run=run)
        frames.append(scored)
        print(f"{run}: " + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                                     for k, v in summary(scored).items()))
    rows = pd.concat(frames, ignore_index=True)
    out.mkdir(parents=True, exist_ok=True)
    rows.to_csv(out / "runs.csv", index=False)
    (out / "tables.md").write_text(table(rows, name, load, walls))
    print(f"wrote {out}/runs.csv and tables.md")


if __name__ == "__main__":
    main()
