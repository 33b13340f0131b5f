"""The one collection type: the passages one question is asked over (paper §8.1), with the
indexes and the graph every method may use, each built on first use."""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from kgp_kedro.search.lexical import Bm25Index
from kgp_kedro.search.tfidf import TfidfIndex


@dataclass
class Collection:
    """One collection's passages (in table order) plus what methods build over them.

    ``vectors`` are the passage embeddings row-aligned with ``passage_ids`` and
    ``embedding_model`` the encoder that made them; ``graph`` is the KG a traversal walks;
    ``ann`` (``pooled.ann`` options) sends vector search through a faiss index.
    """

    collection_id: str
    passage_ids: list[str]
    texts: list[str]
    doc_ids: list[str]
    titles: list[str]
    supporting: list[str] = field(default_factory=list)
    vectors: np.ndarray | None = None
    embedding_model: str | None = None
    graph: Any = None  # kgp_kedro.graphs.Graph
    ann: Mapping[str, Any] | None = None
    _built: dict[Any, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_passages(cls, collection_id: str, passages: pd.DataFrame, **extra: Any) -> "Collection":
        """A collection from its rows of the ``passages`` table."""
        return cls(collection_id=collection_id, passage_ids=passages["passage_id"].tolist(),
                   texts=passages["text"].tolist(), doc_ids=passages["doc_id"].tolist(),
                   titles=passages["title"].tolist(),
                   supporting=passages.loc[passages["is_supporting"].astype(bool),
                                           "passage_id"].tolist(), **extra)

    def __len__(self) -> int:
        return len(self.passage_ids)

    def memo(self, key: Any, make) -> Any:
        """``make()`` computed once per collection and key (indexes, a builder's per-collection
        work shared by its density settings)."""
        if key not in self._built:
            self._built[key] = make()
        return self._built[key]

    def built(self, key: Any) -> bool:
        """Whether :meth:`memo` already holds ``key``."""
        return key in self._built

    # document structure, for the builders -------------------------------------------------
    @property
    def doc_index(self) -> np.ndarray:
        """Each passage's document position (documents in order of first appearance)."""
        def make() -> np.ndarray:
            position = {d: i for i, d in enumerate(dict.fromkeys(self.doc_ids))}
            return np.asarray([position[d] for d in self.doc_ids], dtype=np.int64)
        return self.memo("doc_index", make)

    @property
    def doc_titles(self) -> list[str]:
        """Each document's title, in document position order."""
        return self.memo("doc_titles", lambda: list(
            dict(zip(self.doc_ids, self.titles)).get(d) for d in dict.fromkeys(self.doc_ids)))

    # lookups ----------------------------------------------------------------------------
    @property
    def text_of(self) -> dict[str, str]:
        """``passage id -> text``."""
        return self.memo("text_of", lambda: dict(zip(self.passage_ids, self.texts)))

    @property
    def position_of(self) -> dict[str, int]:
        """``passage id -> row``."""
        return self.memo("position_of", lambda: {p: i for i, p in enumerate(self.passage_ids)})

    def vectors_of(self, passage_ids: Sequence[str]) -> np.ndarray:
        """The embeddings of ``passage_ids`` (rows of :attr:`vectors`)."""
        if self.vectors is None:
            raise ValueError(f"collection {self.collection_id} has no passage embeddings")
        return self.vectors[[self.position_of[p] for p in passage_ids]]

    # indexes ----------------------------------------------------------------------------
    def tfidf(self) -> TfidfIndex:
        return self.memo("tfidf", lambda: TfidfIndex(self.texts))

    def bm25(self, k1: float, b: float) -> Bm25Index:
        return self.memo(("bm25", k1, b), lambda: Bm25Index(self.texts, k1, b))

    def vector_index(self):
        """The faiss index of :attr:`vectors` when ``ann`` is set (else None, exact search)."""
        if self.ann is None or self.vectors is None:
            return None
        from kgp_kedro.search.ann import VectorIndex

        return self.memo("ann", lambda: VectorIndex(self.vectors, **self.ann))

    def vector_search(self, queries: np.ndarray, top: int,
                      device: str = "auto") -> tuple[np.ndarray, np.ndarray]:
        """``(scores, positions)`` per query, through the faiss index when ``ann`` is set,
        else exact."""
        if self.vectors is None:
            raise ValueError(f"collection {self.collection_id} has no passage embeddings")
        index = self.vector_index()
        if index is None:
            from kgp_kedro.search.dense import exact_search

            return exact_search(queries, self.vectors, top, device)
        return index.search(queries, top)


def supporting_passages(passages: pd.DataFrame) -> dict[str, list[str]]:
    """``collection id -> its supporting passage ids`` (table order)."""
    labelled = passages[passages["is_supporting"].astype(bool)]
    return {str(cid): g["passage_id"].tolist()
            for cid, g in labelled.groupby("collection_id", sort=False)}


def iter_collections(passages: pd.DataFrame, **extra: Any) -> Iterator[Collection]:
    """Every collection of a passages table, in order of first appearance."""
    for cid, group in passages.groupby("collection_id", sort=False):
        yield Collection.from_passages(str(cid), group, **extra)
