"""Retrieval metrics over supporting passages (paper §3/§5, HippoRAG-style recall@k)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from kgp_kedro.corpus.collection import supporting_passages


def retrieval_metrics(ranked: Sequence[str], supporting: Iterable[str],
                      ks: Sequence[int]) -> list[dict[str, float]]:
    """For each ``k``: **recall** = |top-k ∩ S| / |S|, **precision** = |top-k ∩ S| / k (k
    counts slots, so a method returning fewer passages is not rewarded), **sp_em** = 1 when
    all of S is in the top k."""
    support = set(supporting)
    if not support:
        raise ValueError("no supporting passages: retrieval metrics are undefined")
    rows = []
    for k in ks:
        hit = len(set(ranked[:k]) & support)
        rows.append({"k": k, "recall": hit / len(support), "precision": hit / k,
                     "sp_em": float(hit == len(support))})
    return rows


RETRIEVAL_SUMMARY_COLUMNS = ["source", "scope", "method", "k", "recall", "precision", "sp_em",
                             "latency_ms", "calls", "n_questions"]


def score_retrieval(questions: pd.DataFrame, passages: pd.DataFrame, ks: Sequence[int],
                    *retrieved: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per question, method and k: recall, precision and SP-EM of the top k against the
    supporting passages; averaged per source × scope × method × k with the mean latency and
    model calls per question. A method is scored on every question it ran on (all of them, or
    the QA questions for the LLM-driven ones): one that returned nothing for a question scores
    0 there. Skipped methods (empty tables) are left out."""
    support = supporting_passages(passages)
    labelled = questions[questions["collection_id"].isin(support)]
    rows = []
    for table in retrieved:
        if table.empty:
            continue
        method, scope = table["method"].iloc[0], table["scope"].iloc[0]
        ranked = {qid: g.sort_values("rank")["passage_id"].dropna().tolist()
                  for qid, g in table.groupby("question_id")}
        timing = table.drop_duplicates("question_id").set_index("question_id")
        asked = labelled[labelled["question_id"].isin(timing.index)]
        for q in asked.itertuples(index=False):
            for m in retrieval_metrics(ranked.get(q.question_id, []), support[q.collection_id], ks):
                rows.append({"source": q.source, "scope": scope, "method": method,
                             "question_id": q.question_id, **m,
                             "latency_ms": timing["latency_ms"].get(q.question_id, float("nan")),
                             "calls": timing["calls"].get(q.question_id, 0)})
    per_question = pd.DataFrame(rows)
    if per_question.empty:
        return per_question, pd.DataFrame(columns=RETRIEVAL_SUMMARY_COLUMNS)
    summary = (per_question.groupby(["source", "scope", "method", "k"], sort=False)
               .agg(recall=("recall", "mean"), precision=("precision", "mean"),
                    sp_em=("sp_em", "mean"), latency_ms=("latency_ms", "mean"),
                    calls=("calls", "mean"), n_questions=("question_id", "nunique"))
               .reset_index())
    return per_question, summary[RETRIEVAL_SUMMARY_COLUMNS]
