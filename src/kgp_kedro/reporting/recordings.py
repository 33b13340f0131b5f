"""The retrieval recordings' command (``python -m kgp_kedro.reporting.recordings``): how many
of a benchmark's recorded retrievals a rerun here changes (a count, not a failure); with
``--backfill``, the recording of a piece committed before recordings existed, from a retrieve
run's tables; with ``--ahead``, the recording of a piece's retrievals before it is read, so a
piece read over several sessions (or CPUs) reads the same passages in each part. The
recordings themselves: :mod:`kgp_kedro.retrievers.recorded`."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from kgp_kedro.reporting.results import read_answers
from kgp_kedro.retrievers.recorded import FILENAME, KEY, compare, read_recorded, record, recorded_rows


def _retrieved(output: Path, methods: Iterable[str]) -> dict[str, pd.DataFrame]:
    """The newest ``retrieved_<method>.parquet`` under ``output`` of each of ``methods`` that
    has one."""
    from kedro.io.core import Version

    from kgp_kedro.io.table import TableDataset

    return {m: TableDataset(filepath=str(output / f"retrieved_{m}.parquet"),
                            version=Version(None, None)).load()
            for m in sorted(set(methods)) if (output / f"retrieved_{m}.parquet").exists()}


def backfill(recording: Path, output: Path) -> pd.DataFrame:
    """Record, for a benchmark committed before its recording existed, the retrieved passages
    of every (method, question) of its ``answers.csv`` (beside ``recording``) from a retrieve
    run's tables under ``output`` (methods without one, HOLMES, EWEK-QA and ToG, are not
    retrieval methods). Replay the piece with ``llm.store_only`` after: a run that ends proves
    these are the passages that built its prompts."""
    answers = read_answers(recording.parent).astype({"question_id": str})
    scored = answers.groupby("method")["question_id"].agg(set).to_dict()
    tables = _retrieved(output, scored)
    return record(recording, [recorded_rows(t, scored[m]) for m, t in tables.items()])


def ahead(recording: Path, output: Path, questions: Path, methods: Sequence[str]
          ) -> pd.DataFrame:
    """Record, before a piece is read, the retrieved passages of each of ``methods`` for every
    question of a ``qa_questions`` table (``questions``, versioned as the catalog writes it:
    the questions the reader will answer)
    from a retrieve run's tables under ``output``. The piece is then read in parts, each
    ``retrieve.replay``-ing this recording, so a part read in a later session builds its prompts
    from the same passages whatever that machine would retrieve. A method without a table, or
    a table without one of the questions, is an error naming it; nothing is written then."""
    from kedro.io.core import Version

    from kgp_kedro.io.table import TableDataset

    asked = TableDataset(filepath=str(questions), version=Version(None, None)).load()
    asked = asked["question_id"].astype(str)
    tables = _retrieved(output, methods)
    lacking = sorted(set(methods) - set(tables))
    if lacking:
        raise ValueError(f"--ahead: no retrieved_<method>.parquet under {output} for "
                         f"{', '.join(lacking)}")
    for method, table in tables.items():
        absent = sorted(set(asked) - set(table["question_id"].astype(str)))
        if absent:
            raise ValueError(f"--ahead: {output / f'retrieved_{method}.parquet'} lacks "
                             f"{len(absent)} of {len(asked)} questions of {questions} "
                             f"(first: {absent[0]})")
    return record(recording, [recorded_rows(t, asked) for t in tables.values()])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="How many recorded retrievals a rerun here "
                                                 "changes (a count, not a failure).")
    parser.add_argument("recording", type=Path, help=f"a benchmark's {FILENAME}")
    parser.add_argument("--output", type=Path, default=Path("data/07_model_output"),
                        help="where the rerun's retrieved_<method>.parquet are "
                             "(default: data/07_model_output)")
    parser.add_argument("--top", type=int, default=10, help="also count changes within the "
                        "first TOP rows (default 10: the benchmark's read.max_passages)")
    parser.add_argument("--backfill", action="store_true",
                        help="instead: write RECORDING from the tables under --output for every "
                             "question and method of the benchmark's answers.csv")
    parser.add_argument("--ahead", type=Path, metavar="QA_QUESTIONS",
                        help="instead: add to RECORDING, before the piece is read, the "
                             "retrievals of --methods for every question of this qa_questions "
                             "table, from the tables under --output")
    parser.add_argument("--methods", nargs="+", default=[],
                        help="the retrieval methods --ahead records")
    args = parser.parse_args(argv)
    if args.ahead is not None:
        if not args.methods:
            parser.error("--ahead needs --methods")
        table = ahead(args.recording, args.output, args.ahead, args.methods)
        sys.stdout.write(f"{args.recording}: {len(table)} rows, "
                         f"{len(table.drop_duplicates(KEY))} questions and methods\n")
        return 0
    if args.backfill:
        table = backfill(args.recording, args.output)
        sys.stdout.write(f"{args.recording}: {len(table)} rows, "
                         f"{len(table.drop_duplicates(KEY))} questions and methods\n")
        return 0
    recording = read_recorded(args.recording)
    counts = compare(recording, _retrieved(args.output, recording["method"]), args.top)
    sys.stdout.write(counts.to_string(index=False) + "\n")
    sys.stdout.write(f"{int(counts['changed'].sum())} of {int(counts['questions'].sum())} "
                     f"retrieved lists differ from {args.recording} "
                     f"({int(counts['changed_top'].sum())} within their first {args.top})\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
