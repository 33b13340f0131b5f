"""EWEK-QA's own figures: the quotes' supporting-passage recall@k before and after the
cross-encoder rerank (and after deduplication), and per method the citation accuracy, LLM
calls and wall time per question (EM, F1 and Hits@1 come from the score stage)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from kgp_kedro.evaluation.retrieval import recall_at_k

RECALL_COLUMNS = ["source", "k", "questions", "recall_filter", "recall_rerank", "recall_dedup"]
SUMMARY_COLUMNS = ["source", "method", "questions", "citation_accuracy", "cited_answers",
                   "citation_judge", "kg_cited", "llm_calls", "wall_ms", "failed"]


def rerank_recall(quotes: pd.DataFrame, passages: pd.DataFrame, ks: Sequence[int]) -> pd.DataFrame:
    """Mean supporting-passage recall@k per source of the filtered quotes in fast-filter order,
    cross-encoder order, and the deduplicated cross-encoder order."""
    gold = {cid: set(g["passage_id"]) for cid, g in
            passages[passages["is_supporting"].astype(bool)].groupby("collection_id")}
    rows = []
    for source, part in quotes.groupby("source", sort=False):
        per_question = []
        for _, group in part.groupby("question_id", sort=False):
            g = gold.get(group["collection_id"].iloc[0], set())
            orders = {
                "filter": group.sort_values("filter_rank")["passage_ids"].tolist(),
                "rerank": group.sort_values("rerank_rank")["passage_ids"].tolist(),
                "dedup": group[group["kept"]].sort_values("rerank_rank")["passage_ids"].tolist()}
            per_question.append({(name, k): recall_at_k(order, g, k)
                                 for name, order in orders.items() for k in ks})
        table = pd.DataFrame(per_question)
        for k in ks:
            rows.append({"source": source, "k": k, "questions": len(table),
                         **{f"recall_{name}": table[(name, k)].mean()
                            for name in ("filter", "rerank", "dedup")}})
    return pd.DataFrame(rows, columns=RECALL_COLUMNS)


def method_summary(answers: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Per source and method: questions, mean citation accuracy (over answers that cite),
    share of answers citing something, the judge's mean (NaN when off), share citing the KG
    triples (quote 1 when the method has triples), LLM calls and wall ms per question, and
    failed calls."""
    rows = []
    for table in answers:
        for (source, method), part in table.groupby(["source", "method"], sort=False):
            cites_kg = [bool(n and 1 in c) for n, c in zip(part["n_triples"], part["citations"])]
            rows.append({
                "source": source, "method": method, "questions": len(part),
                "citation_accuracy": part["citation_accuracy"].astype(float).mean(),
                "cited_answers": float(np.mean([len(c) > 0 for c in part["citations"]])),
                "citation_judge": part["citation_judge"].astype(float).mean(),
                "kg_cited": float(np.mean(cites_kg)),
                "llm_calls": part["llm_calls"].astype(float).mean(),
                "wall_ms": part["wall_ms"].astype(float).mean(),
                "failed": int(part["error"].notna().sum())})
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
