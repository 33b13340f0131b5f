"""TF-IDF search: the seeding function g(V, X, q) of Algorithm 1 (paper §4), and the TF-IDF
cosine φ that ranks candidates against generated evidence."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.search.ranking import top_k


class TfidfIndex:
    """TF-IDF vectors of a collection's passages, fitted once, searched many times.

    The vectorizer is fitted on the collection's passages, as the reference code's seeding
    retriever is (``count_nei_overlap.tf_idf_retriever``); rows are L2-normalised, so the dot
    product is the cosine similarity.
    """

    def __init__(self, passages: Sequence[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.size = len(passages)
        self.vectorizer = TfidfVectorizer()
        try:
            self.matrix = self.vectorizer.fit_transform(passages) if self.size else None
        except ValueError:  # no word in any passage
            self.matrix = None

    def scores(self, query: str) -> np.ndarray:
        """The cosine similarity of every passage to ``query`` (zeros when no passage has a
        word)."""
        if self.matrix is None:
            return np.zeros(self.size)
        return (self.matrix @ self.vectorizer.transform([query]).T).toarray().ravel()

    def search(self, query: str, top: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions and scores of the ``top`` passages (ties go to the earlier passage)."""
        if top < 1:
            raise ValueError(f"top_k must be >= 1, got {top}")
        return top_k(self.scores(query), top)


def tfidf_search(query: str, passages: Sequence[str], top: int) -> tuple[np.ndarray, np.ndarray]:
    """Rank ``passages`` by TF-IDF cosine similarity to ``query`` (IDF over the passages);
    the positions and scores of the ``top`` best."""
    return TfidfIndex(passages).search(query, top)


def text_similarity(query: str, candidates: Sequence[str]) -> np.ndarray:
    """TF-IDF cosine of each candidate to ``query``, IDF over the query and the candidates
    (φ of Eq. 1 for generated evidence)."""
    return TfidfIndex([query, *candidates]).scores(query)[1:]
