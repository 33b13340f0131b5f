"""Lexical baselines (paper §8.2): BM25 and Levenshtein fuzzy matching."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _top(scores: np.ndarray, top_k: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(-scores, kind="stable")[:top_k]
    return order, scores[order]


def bm25_scores(query: str, passages: Sequence[str], k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    """BM25 (Lucene variant, English stop words) score of every passage for ``query``."""
    import bm25s

    retriever = bm25s.BM25(k1=k1, b=b)
    retriever.index(bm25s.tokenize(list(passages), stopwords="en", show_progress=False),
                    show_progress=False)
    query_tokens = bm25s.tokenize([query], stopwords="en", return_ids=False,
                                  show_progress=False)[0]
    vocab = retriever.vocab_dict
    known = [t for t in query_tokens if t in vocab]
    if not known:
        return np.zeros(len(passages))
    return np.asarray(retriever.get_scores(known), dtype=np.float64)


def bm25_search(query: str, passages: Sequence[str], top_k: int, k1: float = 1.5,
                b: float = 0.75) -> tuple[np.ndarray, np.ndarray]:
    """Positions and scores of the ``top_k`` BM25 passages (ties: earlier passage first)."""
    if len(passages) == 0:
        return np.array([], dtype=np.int64), np.array([])
    return _top(bm25_scores(query, passages, k1, b), top_k)


def fuzzy_search(query: str, passages: Sequence[str], top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``top_k`` passages by normalised Levenshtein similarity to ``query`` (paper §8.2,
    the fuzzy-matching half of the KNN baseline), lower-cased."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cdist

    if len(passages) == 0:
        return np.array([], dtype=np.int64), np.array([])
    scores = cdist([query.lower()], [p.lower() for p in passages],
                   scorer=Levenshtein.normalized_similarity, workers=1)[0]
    return _top(np.asarray(scores, dtype=np.float64), top_k)
