"""Retrieve and rerank (EWEK-QA §3.1.1): a fast filter keeps the most promising quotes, a
cross-encoder reorders them. The paper filters with a MiniLM cross-encoder and reranks with a
DeBERTa one, both trained on MS MARCO; offline, the filter is BM25 (or MiniLM cosine) and the
reranker the MiniLM cross-encoder trained here (:mod:`kgp_kedro.training.cross_encoder`) or any
sentence-transformers cross-encoder named by path or hub name."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.models.cross_encoders import pair_scores
from kgp_kedro.plumbing.registry import Registry
from kgp_kedro.search.lexical import Bm25Index
from kgp_kedro.search.ranking import top_k

# ``ewek.rerank.filter`` -> a fast filter, ``(question, quote texts, embed, ewek.rerank) ->
# each quote's score``, registered with ``@FAST_FILTERS.register("<name>")``
FAST_FILTERS: Registry = Registry("EWEK-QA fast filter", "kgp_kedro.ewek")


@FAST_FILTERS.register("bm25")
def bm25_filter(question: str, texts: Sequence[str], embed, rerank_params) -> np.ndarray:
    """BM25 (``bm25_k1``, ``bm25_b`` of ``ewek.rerank``) of each quote for the question."""
    return Bm25Index(texts, rerank_params.bm25_k1, rerank_params.bm25_b).scores(question)


@FAST_FILTERS.register("minilm")
def minilm_filter(question: str, texts: Sequence[str], embed, rerank_params) -> np.ndarray:
    """The cosine of each quote's normalised sentence embedding (``embed``) to the
    question's."""
    if not texts:
        return np.zeros(0)
    vectors = embed([question, *texts])
    return vectors[1:] @ vectors[0]


def fast_filter(question: str, texts: Sequence[str], top: int, kind: str, embed,
                rerank_params) -> tuple[np.ndarray, np.ndarray]:
    """Positions and scores of the ``top`` quotes by the registered filter ``kind``; ties keep
    the earlier quote first."""
    scores = FAST_FILTERS.get(kind)(question, texts, embed, rerank_params)
    return top_k(np.asarray(scores, dtype=np.float64), top)


def cross_scores(cross_encoder, question: str, texts: Sequence[str],
                 batch_size: int = 32) -> np.ndarray:
    """The cross-encoder's relevance logit of each ``(question, text)`` pair."""
    return pair_scores(cross_encoder, [(question, t) for t in texts], batch_size)


def rerank(cross_encoder, question: str, texts: Sequence[str],
           batch_size: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``texts`` in cross-encoder order (ties: earlier first) and their scores;
    without a cross-encoder (``None``: the guard kept the filter's order) the given order and
    NaN scores."""
    if cross_encoder is None:
        return np.arange(len(texts)), np.full(len(texts), np.nan)
    scores = cross_scores(cross_encoder, question, texts, batch_size)
    return top_k(scores, len(texts))
