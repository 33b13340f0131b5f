"""The rerank guard: the trained cross-encoder reorders the quotes only when, on questions it
never saw, it ranks supporting quotes higher than the fast filter's order does.

The check is the pipeline's own quote selection (:func:`kgp_kedro.ewek.run.select_quotes`, the
filter's top ``rerank.filter_top`` quotes of the whole collection, Evidence Extractor spans
included) on the held-out questions, scored by supporting-passage recall@k at
``k = composer.quotes`` (the quotes the composer reads) in the filter's order and in the
cross-encoder's; and the cross-encoder's AUC within those questions' training-style pairs must
reach ``rerank.min_auc``. An AUC on pairs alone can pass while the rerank lowers recall: the
pairs' negatives are a few BM25-hard quotes, the pipeline's are the filter's whole top 70."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from kgp_kedro.evaluation.retrieval import recall_at_k
from kgp_kedro.ewek.params import EwekParams
from kgp_kedro.ewek.quotes import collection_pages
from kgp_kedro.ewek.rerank import rerank


def recall_before_after(questions: pd.DataFrame, documents: pd.DataFrame,
                        passages: pd.DataFrame, embed, cross_encoder, params: EwekParams,
                        ks: Sequence[int]) -> pd.DataFrame:
    """One row per question and ``k``: ``source``, ``question_id``, ``k``, and the
    supporting-passage recall@k of the filtered quotes in the fast filter's order
    (``filter``) and in ``cross_encoder``'s (``rerank``); NaN for a question without
    supporting passages. ``embed``: an :class:`~kgp_kedro.ewek.run.Embedder` (evidence spans,
    the minilm filter)."""
    from kgp_kedro.ewek.run import select_quotes

    gold = {cid: set(g["passage_id"]) for cid, g in
            passages[passages["is_supporting"].astype(bool)].groupby("collection_id")}
    docs = dict(tuple(documents.groupby("collection_id", sort=False)))
    texts = dict(tuple(passages.groupby("collection_id", sort=False)))
    rows = []
    for q in questions.itertuples(index=False):
        if q.collection_id not in docs:
            continue
        pages = collection_pages(docs[q.collection_id], texts.get(q.collection_id,
                                                                  passages.iloc[0:0]))
        selection = select_quotes(q.question, pages, embed, None, params)   # filter order
        ids = [quote.passage_ids for quote in selection.filtered]
        order, _ = rerank(cross_encoder, q.question, [quote.text for quote in selection.filtered],
                          params.rerank.batch_size)
        g = gold.get(q.collection_id, set())
        rows.extend({"source": q.source, "question_id": q.question_id, "k": k,
                     "filter": recall_at_k(ids, g, k),
                     "rerank": recall_at_k([ids[i] for i in order], g, k)} for k in ks)
    return pd.DataFrame(rows, columns=["source", "question_id", "k", "filter", "rerank"])


def mean_recall(table: pd.DataFrame, k: int) -> tuple[float, float]:
    """``(filter, rerank)`` mean recall@k of :func:`recall_before_after`'s rows (NaN when no
    question has supporting passages)."""
    part = table[table["k"] == k]
    if part["filter"].notna().sum() == 0:
        return math.nan, math.nan
    return float(np.nanmean(part["filter"])), float(np.nanmean(part["rerank"]))


def guard_fires(heldout_auc: float, min_auc: float, recall_filter: float,
                recall_rerank: float) -> bool:
    """Whether the guard keeps the fast filter's order: the cross-encoder's held-out AUC within
    questions is below ``min_auc``, its held-out recall@k is below the filter order's (the
    rerank would hand the composer fewer supporting quotes), or either is unknown (NaN: no
    held-out question). A tie reranks (the paper's method, no recall lost)."""
    return not (heldout_auc >= min_auc and recall_rerank >= recall_filter)
