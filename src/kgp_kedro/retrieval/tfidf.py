"""TF-IDF search: the seeding function g(V, X, q) of Algorithm 1 (paper §4)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer


def tfidf_search(query: str, passages: Sequence[str], top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """Rank ``passages`` by TF-IDF cosine similarity to ``query``; return the positions and
    scores of the ``top_k`` best (ties go to the earlier passage).

    The vectorizer is fitted on the collection's passages, as the reference code's seeding
    retriever is (``count_nei_overlap.tf_idf_retriever``); rows are L2-normalised, so the dot
    product is the cosine similarity.
    """
    if top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    if len(passages) == 0:
        return np.array([], dtype=np.int64), np.array([])
    vectorizer = TfidfVectorizer()
    try:
        matrix = vectorizer.fit_transform(passages)
    except ValueError:  # no word in any passage
        return np.arange(min(top_k, len(passages))), np.zeros(min(top_k, len(passages)))
    scores = (matrix @ vectorizer.transform([query]).T).toarray().ravel()
    order = np.argsort(-scores, kind="stable")[:top_k]
    return order, scores[order]
