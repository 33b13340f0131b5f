"""EWEK-QA's reranker on the bundled data: the cross-encoder the ewek stage trains (its pairs,
training time, AUC and recall@k on held-out questions, and whether the rerank guard fired), and
the supporting-passage recall@k of the quotes in the fast filter's order against the trained
cross-encoder's order, on the first --per-source questions of HotpotQA and MuSiQue (never trained
on: they stand for ``qa_questions``).

    nice .venv/bin/python benchmarks/bench_ewek.py [--per-source 20]
        [--params ewek.training.epochs=2 ...]

The project's parameters (conf/base + KEDRO_ENV) and the pipelines' own nodes: ingest and
passages run in memory, then the ewek stage's ``train_reranker`` node, then its quote selection
(``select_quotes``) per question (:func:`kgp_kedro.ewek.guard.recall_before_after`), without
the LLM. The recall after rerank is that of the trained model whether or not the guard fired
(with the guard fired the pipeline keeps the filter's order). EWEK-QA's LLM calls per question
need no run: ToG-E calls no LLM and the composer one, so 1 (tests/ewek/test_training.py
asserts it).
"""
from __future__ import annotations

import argparse
import copy
import logging
import os
import time

import yaml

from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.ewek.params import EwekParams
from kgp_kedro.ewek.guard import recall_before_after
from kgp_kedro.ewek.run import open_embedder
from kgp_kedro.pipelines.ewek.nodes import train_reranker
from kgp_kedro.pipelines.in_memory import run_chain
from kgp_kedro.pipelines.parameters import project_parameters

SOURCES = ("hotpotqa", "musique")
KS = (1, 5, 10)


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def set_key(tree: dict, dotted: str, value: str) -> None:
    *path, last = dotted.split(".")
    for key in path:
        tree = tree.setdefault(key, {})
    tree[last] = yaml.safe_load(value)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-source", type=int, default=20)
    parser.add_argument("--params", nargs="*", default=[],
                        help="dotted overrides, e.g. ewek.training.epochs=2")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    raw = copy.deepcopy(project_parameters())
    raw["ingest"]["qa_questions_per_source"] = args.per_source
    for override in args.params:
        set_key(raw, *override.split("=", 1))
    print(load_line())
    data = run_chain("passages", raw, to_outputs=["questions", "documents", "passages",
                                                  "qa_questions"])
    questions, documents, passages = data["questions"], data["documents"], data["passages"]
    qa = data["qa_questions"]
    params = EwekParams.model_validate(raw["ewek"])
    model, report = train_reranker(questions, documents, passages, qa, raw["ewek"],
                                   raw["embed"]["encoders"][params.encoder], raw["passages"])
    row = report.iloc[0]
    print(f"cross-encoder: {row.pairs} pairs ({row.positives} positive) from {row.questions} "
          f"questions, {row.epochs} epoch(s), lr {row.learning_rate:g}, hard negatives "
          f"{row.hard_negatives:g}: {row.seconds:.0f} s on {row.device}")
    print(f"held-out ({row.heldout_questions} questions): AUC within questions "
          f"{row.heldout_auc:.3f} on {row.heldout_pairs} pairs (min_auc {row.min_auc:g}); "
          f"recall@{row.recall_k} {row.heldout_recall_filter:.3f} in the filter's order, "
          f"{row.heldout_recall_rerank:.3f} reranked: guard "
          f"{'FIRED, the pipeline keeps the filter order' if row.guard_fired else 'passed'}")
    print(load_line())

    encoder = EncoderParams.model_validate(raw["embed"]["encoders"][params.encoder])
    start = time.perf_counter()
    with open_embedder(encoder) as embed:   # the project's cache: a re-run encodes nothing
        rows = recall_before_after(qa[qa["source"].isin(SOURCES)], documents, passages, embed,
                                   model, params, KS)
    seconds = time.perf_counter() - start
    table = rows.groupby(["source", "k"], sort=False)[["filter", "rerank"]]
    counts = rows.groupby("source")["question_id"].nunique()
    print(f"\nsupporting-passage recall@k of the {params.rerank.filter} filter's top "
          f"{params.rerank.filter_top} quotes of the questions read, filter order -> "
          f"cross-encoder order ({seconds / max(1, counts.sum()):.2f} s a question: select "
          f"and rerank; whether or not the guard fired)")
    for (source, k), means in table.mean().iterrows():
        print(f"  {source:9s} ({counts[source]} q) recall@{k:<2d} {means['filter']:.3f} -> "
              f"{means['rerank']:.3f} ({means['rerank'] - means['filter']:+.3f})")
    print(f"EWEK-QA LLM calls per question: 1 (ToG-E none, the composer one); ToG up to "
          f"2ND + D + 1 = {2 * params.tog.width * params.tog.depth + params.tog.depth + 1}")
    print(load_line())


if __name__ == "__main__":
    os.environ.setdefault("KEDRO_DISABLE_TELEMETRY", "1")
    main()
