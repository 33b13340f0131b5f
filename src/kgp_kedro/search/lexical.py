"""Lexical baselines (paper §8.2): BM25 and Levenshtein fuzzy matching."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.search.ranking import top_k


class Bm25Index:
    """A BM25 index (bm25s; Lucene variant, English stop words) over a collection's passages,
    built once and searched many times."""

    def __init__(self, passages: Sequence[str], k1: float, b: float) -> None:
        import bm25s

        self._bm25s, self.size = bm25s, len(passages)
        self.retriever = bm25s.BM25(k1=k1, b=b)
        if self.size:
            self.retriever.index(bm25s.tokenize(list(passages), stopwords="en",
                                                show_progress=False), show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every passage for ``query``."""
        if not self.size:
            return np.zeros(0)
        tokens = self._bm25s.tokenize([query], stopwords="en", return_ids=False,
                                      show_progress=False)[0]
        known = [t for t in tokens if t in self.retriever.vocab_dict]
        if not known:
            return np.zeros(self.size)
        return np.asarray(self.retriever.get_scores(known), dtype=np.float64)

    def search(self, query: str, top: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions and scores of the ``top`` passages (ties: earlier passage first)."""
        return top_k(self.scores(query), top)


def fuzzy_search(query: str, passages: Sequence[str], top: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``top`` passages by normalised Levenshtein similarity to ``query`` (paper §8.2,
    the fuzzy-matching half of the KNN baseline), lower-cased."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cdist

    if len(passages) == 0:
        return np.array([], dtype=np.int64), np.array([])
    scores = cdist([query.lower()], [p.lower() for p in passages],
                   scorer=Levenshtein.normalized_similarity, workers=1)[0]
    return top_k(np.asarray(scores, dtype=np.float64), top)
