"""The analyst benchmark of issue 49: `kedro run --env ask` over a folder of PDFs made from
bundled 2WikiMultihopQA train records (:mod:`kgp_kedro.asking.benchmark`: multi-hop questions
whose answer is in a paragraph, only in a facts table, or in no document; ``--source musique``:
from MuSiQue's, :mod:`kgp_kedro.asking.benchmark_musique`), once per run of
``--runs``: a grounding check (``ask.grounding``), then options after ``/``: ``markdown`` for the
tables quoted as read (``ask.tables: markdown``) instead of as facts, ``composed`` for facts
with each chain also one fact, ``headed`` / ``passage``
(``ask.quote_form``), ``distinct`` / ``repeated`` (``ask.distinct_quotes``), ``docs4`` /
``docsall`` (``ask.max_documents``: 4, none), ``chain`` / ``whole`` (``ask.hops``),
``hopquotesN`` (``ask.hop_quotes``: N), ``tablesubjects`` (the entity walk's
``retrieve.methods.kgp.table_subjects``: true)
(:func:`run_params`;
an option not given is conf/ask's); every reply through the
committed store ``results/llm`` (a reply stored there is never asked again; ``--store-only``:
none is asked at all).

Written: ``results/analyst/runs.csv`` (one row per question and run: kind, gold answer,
answer, mark, whether the gold answer was quoted in the prompt, EM, F1, correct, abstained,
seconds, the claims the check removed or re-attributed) and ``results/analyst/tables.md`` (per
run: answerable correct, the table questions correct, EM / F1, grounded rate, abstention
precision / recall, seconds a question; per kind: correct, abstained, the answer quoted and
correct when quoted; the machine's load).

Usage::

    python benchmarks/bench_analyst.py [--per-kind 12] [--runs claim answer none claim/markdown]
        [--store-only] [--params llm.local.n_threads=2]
    # a held-out folder: the next eligible train records, none of the benchmark's
    python benchmarks/bench_analyst.py --folder data/01_raw/analyst_heldout \
        --exclude data/01_raw/analyst_benchmark/questions.jsonl --out results/analyst/heldout
    # a third folder, none of either's (the relation check's judge)
    python benchmarks/bench_analyst.py --folder data/01_raw/analyst_third \
        --exclude data/01_raw/analyst_benchmark/questions.jsonl \
        data/01_raw/analyst_heldout/questions.jsonl --out results/analyst/third
    # a folder of MuSiQue's questions (21: the most its bundled records make)
    python benchmarks/bench_analyst.py --source musique --per-kind 8 \
        --folder data/01_raw/analyst_musique --out results/analyst/musique
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from kgp_kedro.asking import benchmark_musique, locate_passages
from kgp_kedro.asking.answers import quoted_text
from kgp_kedro.asking.benchmark import KINDS, make_folder, plan, score, summary
from kgp_kedro.config.sections import AskParams

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "data" / "01_raw"
# --source: the bundled train file, how to read it, each record's id key and the planner
SOURCES = {
    "2wiki": (RAW / "2wikimultihopqa" / "train_sample500.json",
              json.loads, "_id", plan),
    "musique": (RAW / "musique" / "musique_ans_v1.0_train_sample100.jsonl",
                lambda text: [json.loads(line) for line in text.splitlines() if line.strip()],
                "id", benchmark_musique.plan),
}
ANSWERS = ROOT / "data" / "ask" / "08_reporting" / "ask_answers.parquet"
PASSAGES = ROOT / "data" / "ask" / "03_primary" / "passages.parquet"


def run_ask(folder: Path, extra: list[str]) -> tuple[pd.DataFrame, float]:
    """One ``kedro run --env ask`` over ``folder``'s own questions: its answers and wall s."""
    before = set(ANSWERS.glob("*/*.parquet"))
    env = dict(os.environ, KEDRO_DISABLE_TELEMETRY="1", HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1")
    start = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).with_name("kedro")), "run", "--env", "ask",
                           "--params", ",".join([f"ask.folder={folder}", *extra])],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"kedro run failed:\n{done.stderr[-4000:]}")
    written = sorted(set(ANSWERS.glob("*/*.parquet")) - before)
    if not written:
        sys.exit(f"kedro run wrote no new {ANSWERS}")
    return pd.read_parquet(written[-1]), wall


def run_params(run: str) -> dict[str, str]:
    """A run's ask parameters: ``grounding[/option...]``, each option ``markdown``,
    ``facts`` or ``composed`` (``ask.tables``), ``headed`` or ``passage`` (``ask.quote_form``), ``distinct``
    or ``repeated`` (``ask.distinct_quotes``), ``docsN`` or ``docsall``
    (``ask.max_documents``: N or null), ``chain`` or ``whole`` (``ask.hops``), ``hopquotesN``
    (``ask.hop_quotes``: N), ``tablesubjects`` (``retrieve.methods.kgp.table_subjects``:
    true, a key of its own); an option not given: the default of
    :class:`~kgp_kedro.config.sections.AskParams` (conf/ask sets none of them)."""
    grounding, *options = run.split("/")
    default = AskParams()
    out = {"grounding": grounding, "tables": default.tables,
           "quote_form": default.quote_form,
           "max_documents": "null" if default.max_documents is None
           else str(default.max_documents),
           "distinct_quotes": str(default.distinct_quotes).lower(), "hops": default.hops,
           "hop_quotes": str(default.hop_quotes)}
    for option in options:
        if option in ("markdown", "facts", "composed"):
            out["tables"] = option
        elif option in ("headed", "passage"):
            out["quote_form"] = option
        elif option in ("distinct", "repeated"):
            out["distinct_quotes"] = str(option == "distinct").lower()
        elif option in ("chain", "whole"):
            out["hops"] = option
        elif option == "tablesubjects":
            out["retrieve.methods.kgp.table_subjects"] = "true"
        elif option.startswith("hopquotes") and option[9:].isdigit():
            out["hop_quotes"] = option[9:]
        elif option.startswith("docs") and (option[4:] == "all" or option[4:].isdigit()):
            out["max_documents"] = "null" if option == "docsall" else option[4:]
        else:
            sys.exit(f"--runs: unknown option {option!r} in {run!r} (run_params)")
    return out


def quotes(options: dict[str, str]) -> dict[str, str]:
    """Each passage of the last ask run as its prompt quoted it under ``options``."""
    passages = pd.read_parquet(sorted(PASSAGES.glob("*/*.parquet"))[-1])
    return {p: quoted_text(place, options["tables"], options["quote_form"])
            for p, place in locate_passages(passages).items()}


def _count(claims: str, verdict: str) -> int:
    return sum(c["verdict"] == verdict for c in json.loads(claims))


def table(rows: pd.DataFrame, load: float, walls: dict[str, float]) -> str:
    """tables.md: one row per run, then per kind."""
    head = ("| run | questions | answerable correct | correct, either date form | "
            "table (two-row) correct | EM | F1 | "
            "grounded | abstention P | abstention R | claims removed | claims re-attributed "
            "| s / question |")
    lines = ["# Analyst benchmark (issue 49)", "",
             "Generated by `python benchmarks/bench_analyst.py`; never edit by hand. "
             f"Machine load (1 min) at the start: {load:.1f} on {os.cpu_count()} CPUs.", "",
             head, "| " + " | ".join("---" for _ in range(head.count("|") - 1)) + " |"]
    for run, scored in rows.groupby("run", sort=False):
        s = summary(scored)
        lines.append(
            f"| {run} | {s['questions']} | {s['correct']:.1%} | {s['correct_dates']:.1%} | "
            f"{s['table_correct']:.1%} | "
            f"{s['em']:.1%} | {s['f1']:.1%} | {s['grounded']:.1%} | "
            f"{s['abstention_precision']:.1%} | {s['abstention_recall']:.1%} | "
            f"{int(scored['removed'].sum())} | {int(scored['reattributed'].sum())} | "
            f"{s['seconds']:.1f} |")
    lines += ["", "either date form: correct (below), or a full date gold answer stated in its "
              "other written form (\"November 1, 1967\" for \"1 November 1967\"; "
              "kgp_kedro.asking.benchmark.same_date).", "",
              "grounded: answers not *not found* marked *supported* by the run's own check "
              "(the run `none` checks nothing, so every answer it keeps counts); claims removed "
              "and re-attributed: by the run's check, over the reader's replies.", "",
              "Per kind (correct: the gold answer inside an answer not marked *not found*; "
              "abstained: marked *not found*; answer quoted: questions whose gold answer is a "
              "phrase of a quote of the prompt, and how many of them are answered correctly):",
              "",
              "| run | kind | questions | correct | abstained | answer quoted | correct when "
              "quoted |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for (run, kind), scored in rows.groupby(["run", "kind"], sort=False):
        held = scored[scored["quoted"]]
        lines.append(f"| {run} | {kind} | {len(scored)} | {scored['correct'].mean():.1%} | "
                     f"{scored['abstained'].mean():.1%} | {len(held)} | "
                     + (f"{int(held['correct'].sum())} |" if kind != "none" else "- |"))
    lines += ["", "Wall time of each run (s): " + ", ".join(f"{r} {w:.0f}"
                                                           for r, w in walls.items())]
    return "\n".join(lines) + "\n"


def recorded_load_and_walls(text: str) -> tuple[float, dict[str, float]]:
    """The machine load and each run's wall seconds a ``tables.md`` (:func:`table`) records."""
    load = float(re.search(r"Machine load \(1 min\) at the start: ([\d.]+)", text)[1])
    walls = re.search(r"^Wall time of each run \(s\): (.*)$", text, re.M)[1]
    return load, {run: float(wall) for run, wall in
                  (item.rsplit(" ", 1) for item in walls.split(", "))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-kind", type=int, default=12)
    parser.add_argument("--source", choices=sorted(SOURCES), default="2wiki",
                        help="the bundled train records the folder is made from "
                             "(kgp_kedro.asking.benchmark, .benchmark_musique)")
    parser.add_argument("--runs", nargs="+",
                        default=["claim", "answer", "none", "claim/markdown"])
    parser.add_argument("--folder", type=Path, default=ROOT / "data/01_raw/analyst_benchmark")
    parser.add_argument("--out", type=Path, default=ROOT / "results/analyst")
    parser.add_argument("--exclude", type=Path, nargs="+", default=[],
                        help="questions.jsonl files whose records are left out (a held-out "
                             "folder disjoint from the benchmark's, a third from both)")
    parser.add_argument("--store-only", action="store_true")
    parser.add_argument("--params", default="", help="more kedro --params")
    parser.add_argument("--add", action="store_true",
                        help="add the runs to --out's runs.csv and tables.md (a run of the "
                             "same name replaced), the other runs keeping their rows, seconds "
                             "and wall time; the table keeps the first runs' load")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    left_out = {json.loads(line)["id"] for path in args.exclude
                for line in path.read_text().splitlines() if line.strip()}
    train, read, key, planner = SOURCES[args.source]
    questions = make_folder(args.folder, [r for r in read(train.read_text())
                                          if r[key] not in left_out], args.per_kind, planner)
    extra = ["llm.store=results/llm", *(["llm.store_only=true"] if args.store_only else []),
             *[p for p in args.params.split(",") if p]]
    frames, walls = [], {}
    for run in args.runs:
        options = run_params(run)
        # the run's options last: they win over a key of --params (a folder recorded with a
        # setting off replays with it off, its runs that name the option with it on)
        answers, walls[run] = run_ask(args.folder, extra + [
            f"{k}={v}" if "." in k else f"ask.{k}={v}" for k, v in options.items()])
        scored = score(answers, questions, quotes(options)).assign(
            run=run, removed=answers["claims"].map(lambda c: _count(c, "unsupported")),
            reattributed=answers["claims"].map(lambda c: _count(c, "re-attributed")))
        frames.append(scored)
        print(f"{run}: {summary(scored)}")
    rows = pd.concat(frames, ignore_index=True)
    if args.add and (args.out / "runs.csv").exists():
        if not (args.out / "tables.md").exists():
            sys.exit(f"--add: {args.out}/runs.csv has no tables.md beside it to add to")
        kept = pd.read_csv(args.out / "runs.csv")
        rows = pd.concat([kept[~kept["run"].isin(args.runs)], rows], ignore_index=True)
        load, recorded = recorded_load_and_walls((args.out / "tables.md").read_text())
        walls = {**{r: w for r, w in recorded.items() if r not in walls}, **walls}
    args.out.mkdir(parents=True, exist_ok=True)
    rows.to_csv(args.out / "runs.csv", index=False)
    (args.out / "tables.md").write_text(table(rows, load, walls))
    print(f"wrote {args.out}/runs.csv and tables.md ({len(questions)} questions: "
          + ", ".join(f"{sum(q['kind'] == k for q in questions)} {k}" for k in KINDS) + ")")


if __name__ == "__main__":
    main()
