"""What HOLMES' reader did with its facts, counted with no model call from a benchmark's
committed answers and the tables a replay of it writes (``make replay``, or the piece's
``kedro run`` with ``llm.store_only``): per source, the questions, the replies that keep the
A.4.5 format (a Final Response field; of a question's replies, the last, which its answer is
read from), the Final Responses that are None (the reply says the facts do not hold the
answer), and the questions whose gold answer occurs in the facts the reader read
(case-folded), among them and overall.

    .venv/bin/python benchmarks/holmes_replies.py [--benchmark qa_benchmark_small_reader] \
        [--method holmes] [--output data/qa_benchmark/07_model_output]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
from kedro.io.core import Version

from kgp_kedro.io.table import TableDataset
from kgp_kedro.holmes.replies import CALLS_SEPARATOR, parse_reply, reply_fields
from kgp_kedro.reporting.results import read_answers

ROOT = Path(__file__).resolve().parents[1]


def _newest(path: Path) -> pd.DataFrame:
    return TableDataset(filepath=str(path), version=Version(None, None)).load()


def counts(scored: pd.DataFrame, replies: pd.DataFrame, facts: pd.DataFrame) -> pd.DataFrame:
    """One row a source: the counts of the module's docstring, over the questions of
    ``scored`` (a benchmark's answers of one method)."""
    replies = replies.set_index("question_id")
    read = facts.fillna({"text": ""}).groupby("question_id")["text"].agg(" ".join).str.lower()
    rows = []
    for source, part in scored.groupby("source", sort=False):
        kept = none = held = held_none = 0
        for q, gold in zip(part["question_id"], part["gold"]):
            last = replies.loc[q, "raw_response"].split(CALLS_SEPARATOR)[-1]   # the answer's
            formatted = "final response" in reply_fields(last)
            said_none = formatted and not parse_reply(last)[0].strip()
            in_facts = str(gold).lower() in read.get(q, "")
            kept += formatted
            none += said_none
            held += in_facts
            held_none += said_none and in_facts
        rows.append({"source": source, "questions": len(part), "format_kept": kept,
                     "final_none": none, "gold_in_facts": held,
                     "final_none_gold_in_facts": held_none})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="qa_benchmark_small_reader")
    parser.add_argument("--method", default="holmes")
    parser.add_argument("--output", type=Path, default=ROOT / "data" / "qa_benchmark" /
                        "07_model_output", help="where the replay wrote its tables")
    args = parser.parse_args()
    answers = read_answers(ROOT / "results" / args.benchmark).astype({"question_id": str})
    scored = answers[answers["method"] == args.method]
    replies = _newest(args.output / f"answers_{args.method}.parquet").astype({"question_id": str})
    facts = _newest(args.output / f"holmes_read_{args.method}.parquet").astype({"question_id": str})
    lacking = sorted(set(scored["question_id"]) - set(replies["question_id"]))
    if lacking:
        raise SystemExit(f"{args.output / f'answers_{args.method}.parquet'} lacks {len(lacking)} "
                         f"of the {len(scored)} questions of results/{args.benchmark} "
                         f"(first: {lacking[0]}): replay the piece first")
    table = counts(scored, replies, facts)
    total = table.sum(numeric_only=True).to_dict()
    print(pd.concat([table, pd.DataFrame([{"source": "all", **total}])]).to_string(index=False))


if __name__ == "__main__":
    main()
