"""Approximate nearest-neighbour search with faiss, for collections where exact search over
every passage pair would be quadratic (the pooled setting)."""
from __future__ import annotations

import time

import numpy as np

KINDS = ("hnsw", "flat")


class VectorIndex:
    """Inner-product search over passage vectors (options: ``pooled.ann``): ``hnsw`` (approximate, HNSW graph with ``m``
    links a node) or ``flat`` (exact). ``build_seconds`` records the build time."""

    def __init__(self, vectors: np.ndarray, kind: str, m: int, ef_construction: int,
                 ef_search: int) -> None:
        import faiss

        if kind not in KINDS:
            raise ValueError(f"index kind must be one of {KINDS}, got {kind!r}")
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) == 0:
            raise ValueError(f"need a non-empty 2-d matrix of vectors, got shape {vectors.shape}")
        start = time.perf_counter()
        dim = vectors.shape[1]
        if kind == "flat":
            self.index = faiss.IndexFlatIP(dim)
        else:
            self.index = faiss.IndexHNSWFlat(dim, m, faiss.METRIC_INNER_PRODUCT)
            self.index.hnsw.efConstruction = ef_construction
            self.index.hnsw.efSearch = ef_search
        self.index.add(vectors)
        self.build_seconds = time.perf_counter() - start
        self.kind, self.size = kind, len(vectors)

    def search(self, queries: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, positions)``, each ``len(queries) × min(top, size)``, best first (the
        index's hits in the ranking rule's order: :func:`~kgp_kedro.search.ranking.rank_key`,
        then position)."""
        from kgp_kedro.search.ranking import rank_key

        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        scores, positions = self.index.search(queries, min(top, self.size))
        scores, positions = scores.astype(np.float64), positions.astype(np.int64)
        order = np.array([np.lexsort((p, -rank_key(s))) for s, p in zip(scores, positions)],
                         dtype=np.int64).reshape(scores.shape)
        return (np.take_along_axis(scores, order, axis=1),
                np.take_along_axis(positions, order, axis=1))
