"""TF-IDF search: the seeding function g(V, X, q) of Algorithm 1 (paper §4), and the TF-IDF
cosine φ that ranks candidates against generated evidence; the one TF-IDF of the project,
used by the KG builders, the seeds and the agents alike.

It works over many small text sets at once (the TF-IDF seeds of many collections, the TF-IDF
agent's steps of many questions), each set weighted as a vectorizer fitted on it alone.
Every distinct text is tokenised once by scikit-learn's default analyzer (lowercase, words of
two characters or more), into one count matrix over the union vocabulary (:class:`TextCounts`).
A set takes its rows and the columns of its own words, in alphabetical order, which are the
counts a ``TfidfVectorizer`` fitted on the set has; its smooth IDF
(``ln((1 + n) / (1 + df)) + 1``), the weighting and the L2 normalisation follow
scikit-learn's formulas, computed with flat numpy arrays (no sparse-matrix object per set).
The scores are ``TfidfVectorizer``'s up to the order of summation, and a set's numbers are
the same bits whatever else the counts hold: a question run alone and in a batch rank alike.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.search.ranking import top_k


class TextCounts:
    """Word counts of ``texts`` (deduplicated), tokenised once."""

    def __init__(self, texts: Sequence[str]) -> None:
        from sklearn.feature_extraction.text import CountVectorizer

        self.texts = list(dict.fromkeys(texts))
        self.row_of = {t: r for r, t in enumerate(self.texts)}
        self.vectorizer = CountVectorizer(dtype=np.int64)
        try:
            matrix = self.vectorizer.fit_transform(self.texts).tocsr()
        except ValueError:  # no text, or no word in any text
            matrix = None
        else:
            matrix.sort_indices()   # a row's words in column, i.e. alphabetical, order
        self.matrix = matrix

    def rows(self, texts: Sequence[str]) -> "Rows":
        """The count rows of ``texts`` (each one of this object's texts)."""
        if self.matrix is None:
            return Rows.empty(len(texts))
        m = self.matrix
        which = np.asarray([self.row_of[t] for t in texts], dtype=np.int64)
        starts, lengths = m.indptr[which], np.diff(m.indptr)[which]
        ptr = np.concatenate([[0], np.cumsum(lengths)])
        at = np.repeat(starts - ptr[:-1], lengths) + np.arange(ptr[-1])
        return Rows(m.indices[at], m.data[at].astype(np.float64), ptr)

    def query_row(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """``(global columns, counts)`` of ``text``, tokenised now (words outside the
        vocabulary dropped)."""
        if self.matrix is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        row = self.vectorizer.transform([text]).tocsr()
        row.sort_indices()
        return row.indices.astype(np.int64), row.data.astype(np.float64)


class Rows:
    """Count rows in flat arrays: row ``i`` holds ``columns[ptr[i]:ptr[i+1]]`` (global
    column ids, ascending) with ``counts`` alike."""

    def __init__(self, columns: np.ndarray, counts: np.ndarray, ptr: np.ndarray) -> None:
        self.columns, self.counts, self.ptr = columns, counts, ptr
        self.n = len(ptr) - 1
        self.row = np.repeat(np.arange(self.n), np.diff(ptr))
        # the set's own words, in alphabetical order, and each entry's position among them
        self.words, self.local = np.unique(columns, return_inverse=True)

    @classmethod
    def empty(cls, n: int) -> "Rows":
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(n + 1, dtype=np.int64))

    def idf(self) -> np.ndarray:
        """Smooth IDF of the set's words (``TfidfTransformer.fit``'s formula and order)."""
        df = np.bincount(self.local, minlength=len(self.words)).astype(np.float64)
        df += 1.0
        idf = np.full_like(df, fill_value=self.n + 1, dtype=np.float64)
        idf /= df
        np.log(idf, out=idf)
        idf += 1.0
        return idf

    def weighed(self, idf: np.ndarray) -> np.ndarray:
        """The TF-IDF weights of every entry, each row L2-normalised."""
        weights = self.counts * idf[self.local]
        norms = np.sqrt(np.bincount(self.row, weights=weights * weights, minlength=self.n))
        return weights / np.where(norms > 0, norms, 1.0)[self.row]

    def dot(self, weights: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Each row's weights against ``query`` (dense over the set's words)."""
        return np.bincount(self.row, weights=weights * query[self.local], minlength=self.n)


class TfidfIndex:
    """TF-IDF vectors of a collection's passages, fitted once, searched many times.

    The IDF is over the collection's passages, as the reference code's seeding retriever's
    vectorizer is (``count_nei_overlap.tf_idf_retriever``); rows are L2-normalised, so the dot
    product is the cosine similarity. ``counts`` (holding every passage) shares one
    tokenisation among many indexes; the scores are the same bits with or without it.
    """

    def __init__(self, passages: Sequence[str], counts: TextCounts | None = None) -> None:
        self.size = len(passages)
        self.counts = TextCounts(passages) if counts is None else counts
        self.rows = self.counts.rows(passages)
        self.idf = self.rows.idf()
        self.weights = self.rows.weighed(self.idf)

    def scores(self, query: str) -> np.ndarray:
        """The cosine similarity of every passage to ``query`` (``query`` tokenised here, its
        words outside the passages dropped; zeros when no passage has a word)."""
        words = self.rows.words
        if not len(words):
            return np.zeros(self.size)
        columns, tf = self.counts.query_row(query)
        at = np.searchsorted(words, columns)
        inside = (at < len(words)) & (words[np.minimum(at, len(words) - 1)] == columns)
        at, tf = at[inside], tf[inside]
        dense = np.zeros(len(words))
        weights = tf * self.idf[at]
        norm = np.sqrt(np.sum(weights * weights))
        dense[at] = weights / norm if norm > 0 else weights
        return self.rows.dot(self.weights, dense)

    def search(self, query: str, top: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions and scores of the ``top`` passages (ties go to the earlier passage)."""
        if top < 1:
            raise ValueError(f"top_k must be >= 1, got {top}")
        return top_k(self.scores(query), top)


def tfidf_search(query: str, passages: Sequence[str], top: int) -> tuple[np.ndarray, np.ndarray]:
    """Rank ``passages`` by TF-IDF cosine similarity to ``query`` (IDF over the passages);
    the positions and scores of the ``top`` best."""
    return TfidfIndex(passages).search(query, top)


def similarities(counts: TextCounts, query: str, texts: Sequence[str]) -> np.ndarray:
    """The TF-IDF cosine of each text to ``query``, IDF over ``query`` and ``texts`` (``query``
    and ``texts`` all among ``counts``' texts)."""
    rows = counts.rows([query, *texts])
    if not len(rows.words):
        return np.zeros(len(texts))
    weights = rows.weighed(rows.idf())
    dense = np.zeros(len(rows.words))
    first = slice(rows.ptr[0], rows.ptr[1])
    dense[rows.local[first]] = weights[first]
    return rows.dot(weights, dense)[1:]


def text_similarity(query: str, candidates: Sequence[str]) -> np.ndarray:
    """TF-IDF cosine of each candidate to ``query``, IDF over the query and the candidates
    (φ of Eq. 1 for generated evidence)."""
    return similarities(TextCounts([query, *candidates]), query, candidates)
