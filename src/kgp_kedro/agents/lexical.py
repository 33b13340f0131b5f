"""TF-IDF over many small text sets at once (the TF-IDF seeds of many collections, the TF-IDF
agent's steps of many questions), each set weighted as a vectorizer fitted on it alone.

Every distinct text is tokenised once by scikit-learn's default analyzer (lowercase, words of
two characters or more), into one count matrix over the union vocabulary. A set takes its
rows and the columns of its own words, in alphabetical order, which are the counts a
``TfidfVectorizer`` fitted on the set has; its smooth IDF (``ln((1 + n) / (1 + df)) + 1``),
the weighting and the L2 normalisation follow scikit-learn's formulas, computed with flat
numpy arrays (no sparse-matrix object per set). The scores are
:class:`kgp_kedro.search.tfidf.TfidfIndex`'s and ``text_similarity``'s up to the order of
summation, and a set's numbers are the same bits whatever else the counts hold: a question
run alone and in a batch rank alike.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class TextCounts:
    """Word counts of ``texts`` (deduplicated), tokenised once."""

    def __init__(self, texts: Sequence[str]) -> None:
        from sklearn.feature_extraction.text import CountVectorizer

        self.texts = list(dict.fromkeys(texts))
        self.row_of = {t: r for r, t in enumerate(self.texts)}
        self.vectorizer = CountVectorizer(dtype=np.int64)
        try:
            matrix = self.vectorizer.fit_transform(self.texts).tocsr()
        except ValueError:  # no word in any text
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


def similarities(counts: TextCounts, query: str, texts: Sequence[str]) -> np.ndarray:
    """``text_similarity(query, texts)``: the TF-IDF cosine of each text to ``query``, IDF over
    ``query`` and ``texts`` (``query`` and ``texts`` all among ``counts``' texts)."""
    rows = counts.rows([query, *texts])
    if not len(rows.words):
        return np.zeros(len(texts))
    weights = rows.weighed(rows.idf())
    dense = np.zeros(len(rows.words))
    first = slice(rows.ptr[0], rows.ptr[1])
    dense[rows.local[first]] = weights[first]
    return rows.dot(weights, dense)[1:]


def search_scores(counts: TextCounts, query: str, texts: Sequence[str]) -> np.ndarray:
    """``TfidfIndex(texts).scores(query)``: the TF-IDF cosine of each text to ``query``, IDF
    over ``texts`` alone (``texts`` among ``counts``' texts; ``query`` tokenised here, its
    words outside ``texts`` dropped)."""
    rows = counts.rows(texts)
    if not len(rows.words):
        return np.zeros(len(texts))
    idf = rows.idf()
    columns, tf = counts.query_row(query)
    at = np.searchsorted(rows.words, columns)
    inside = (at < len(rows.words)) & (rows.words[np.minimum(at, len(rows.words) - 1)]
                                       == columns)
    at, tf = at[inside], tf[inside]
    dense = np.zeros(len(rows.words))
    weights = tf * idf[at]
    norm = np.sqrt(np.sum(weights * weights))
    dense[at] = weights / norm if norm > 0 else weights
    return rows.dot(rows.weighed(idf), dense)
