"""TF-IDF search: the seeding function g(V, X, q) of Algorithm 1 (paper §4)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer


class TfidfIndex:
    """TF-IDF vectors of a collection's passages, fitted once, searched many times.

    The vectorizer is fitted on the collection's passages, as the reference code's seeding
    retriever is (``count_nei_overlap.tf_idf_retriever``); rows are L2-normalised, so the dot
    product is the cosine similarity.
    """

    def __init__(self, passages: Sequence[str]) -> None:
        self.size = len(passages)
        self.vectorizer = TfidfVectorizer()
        try:
            self.matrix = self.vectorizer.fit_transform(passages) if self.size else None
        except ValueError:  # no word in any passage
            self.matrix = None

    def search(self, query: str, top_k: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions and scores of the ``top_k`` passages (ties go to the earlier passage)."""
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        if self.matrix is None:
            n = min(top_k, self.size)
            return np.arange(n), np.zeros(n)
        scores = (self.matrix @ self.vectorizer.transform([query]).T).toarray().ravel()
        order = np.argsort(-scores, kind="stable")[:top_k]
        return order, scores[order]


def tfidf_search(query: str, passages: Sequence[str], top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """Rank ``passages`` by TF-IDF cosine similarity to ``query``; return the positions and
    scores of the ``top_k`` best (ties go to the earlier passage)."""
    return TfidfIndex(passages).search(query, top_k)
