"""The edge table every KG builder returns, and the adjacency view the metrics read."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

EDGE_COLUMNS = ["collection_id", "setting", "src", "dst", "kind", "weight", "evidence",
                "directed"]


@dataclass(frozen=True)
class Edges:
    """Edges between passage positions ``0..n-1`` of one collection."""

    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray
    evidence: list[str]
    kind: str
    directed: bool

    def __len__(self) -> int:
        return len(self.src)


def shared_feature_edges(incidence: sparse.spmatrix, feature_names: Sequence[str], kind: str,
                         max_evidence: int = 3) -> Edges:
    """Undirected edges between passages that share at least one feature.

    ``incidence`` is a binary passages × features matrix (keywords, entities). The weight of
    an edge is the number of shared features; its evidence lists up to ``max_evidence`` of them.
    """
    incidence = sparse.csr_matrix(incidence, dtype=np.int32)
    incidence.data[:] = 1
    shared = sparse.triu(incidence @ incidence.T, k=1).tocoo()
    rows = [set(incidence.indices[incidence.indptr[i]:incidence.indptr[i + 1]])
            for i in range(incidence.shape[0])]
    evidence = ["; ".join(feature_names[f] for f in sorted(rows[i] & rows[j])[:max_evidence])
                for i, j in zip(shared.row, shared.col)]
    order = np.lexsort((shared.col, shared.row))
    return Edges(src=shared.row[order].astype(np.int64), dst=shared.col[order].astype(np.int64),
                 weight=shared.data[order].astype(np.float64),
                 evidence=[evidence[i] for i in order], kind=kind, directed=False)


def edge_frame(edges: Edges, passage_ids: Sequence[str], collection_id: str,
               setting: str) -> pd.DataFrame:
    """Turn positional edges into rows of the ``kg_edges_<variant>`` table."""
    ids = np.asarray(passage_ids, dtype=object)
    return pd.DataFrame({
        "collection_id": collection_id,
        "setting": setting,
        "src": ids[edges.src] if len(edges) else np.array([], dtype=object),
        "dst": ids[edges.dst] if len(edges) else np.array([], dtype=object),
        "kind": edges.kind,
        "weight": edges.weight,
        "evidence": edges.evidence,
        "directed": edges.directed,
    }, columns=EDGE_COLUMNS)


class Adjacency:
    """Neighbour sets of one collection's graph.

    Undirected edges count in both directions; a directed (KNN) edge ``u -> v`` makes ``v`` a
    neighbour of ``u`` only, as the reference code reads successors of KNN graphs.
    """

    def __init__(self, nodes: Sequence[str], src: Sequence[str], dst: Sequence[str],
                 directed: Sequence[bool]) -> None:
        self.nodes = list(nodes)
        self._nbrs: dict[str, set[str]] = {n: set() for n in self.nodes}
        for u, v, d in zip(src, dst, directed):
            if u == v:
                continue
            self._nbrs[u].add(v)
            if not d:
                self._nbrs[v].add(u)

    @classmethod
    def from_edges(cls, nodes: Sequence[str], edges: pd.DataFrame) -> "Adjacency":
        return cls(nodes, edges["src"], edges["dst"], edges["directed"])

    def neighbors(self, node: str) -> set[str]:
        return self._nbrs[node]

    def n_edges(self) -> int:
        """Distinct node pairs joined by an edge (either direction)."""
        return sum(len(v) for v in self._nbrs.values()) - self._n_mutual() // 2

    def _n_mutual(self) -> int:
        return sum(1 for u, vs in self._nbrs.items() for v in vs if u in self._nbrs[v])

    def avg_neighbors(self) -> float:
        """Mean number of neighbours per node (out-neighbours for directed edges)."""
        return float(np.mean([len(v) for v in self._nbrs.values()])) if self.nodes else 0.0

    def density(self) -> float:
        """Share of the ``n(n-1)/2`` node pairs that are joined by an edge."""
        n = len(self.nodes)
        return self.n_edges() / (n * (n - 1) / 2) if n > 1 else 0.0
