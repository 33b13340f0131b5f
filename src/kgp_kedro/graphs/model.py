"""The one graph model of every method (design.md): typed nodes and typed, qualified edges.

On disk a KG variant is two tables, ``kg_nodes_<variant>`` (:data:`NODE_COLUMNS`) and
``kg_edges_<variant>`` (:data:`EDGE_COLUMNS`, one row per edge and density ``setting``). In
memory one collection's graph under one setting is a :class:`Graph`, which every consumer
uses (KG quality, traversal, the pooled setting, notebooks). A passage KG is the case where
every node is a passage (``node_id == passage_id``).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

NODE_KINDS = ("document", "page", "table", "passage", "entity", "fact")
NODE_COLUMNS = ["collection_id", "node_id", "kind", "text", "passage_id", "attributes"]
EDGE_COLUMNS = ["collection_id", "setting", "src", "dst", "relation", "qualifiers", "weight",
                "evidence", "directed"]


@dataclass(frozen=True)
class Nodes:
    """A graph's nodes in order; ``passage_ids[i]`` is None for a node that maps to no passage
    (an entity), ``attributes[i]`` a JSON object string."""

    ids: list[str]
    kinds: list[str]
    texts: list[str]
    passage_ids: list[str | None]
    attributes: list[str] = field(default_factory=list)

    @classmethod
    def of_passages(cls, passage_ids: Sequence[str], texts: Sequence[str]) -> "Nodes":
        ids = list(passage_ids)
        return cls(ids, ["passage"] * len(ids), list(texts), list(ids), ["{}"] * len(ids))

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class Edges:
    """Edges between node positions ``0..n-1``: one relation, direction and optional qualifier
    set per edge (``qualifiers[i]`` a JSON object string, e.g. a fact's source document)."""

    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray
    evidence: list[str]
    relation: list[str]
    directed: list[bool]
    qualifiers: list[str]

    @classmethod
    def uniform(cls, src: np.ndarray, dst: np.ndarray, weight: np.ndarray, evidence: list[str],
                relation: str, directed: bool) -> "Edges":
        """Edges that all share one relation and direction (the passage KGs)."""
        n = len(src)
        return cls(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
                   np.asarray(weight, dtype=np.float64), list(evidence), [relation] * n,
                   [directed] * n, ["{}"] * n)

    @classmethod
    def empty(cls) -> "Edges":
        return cls.uniform(np.array([], dtype=np.int64), np.array([], dtype=np.int64),
                           np.array([]), [], "", False)

    def __len__(self) -> int:
        return len(self.src)


class Graph:
    """One collection's graph under one density setting, with neighbours by relation and kind.

    Undirected edges count in both directions; a directed edge ``u -> v`` (KNN) makes ``v`` a
    neighbour of ``u`` only, as the reference code reads successors of KNN graphs. Self-loops
    are dropped.
    """

    def __init__(self, nodes: Nodes, edges: Edges) -> None:
        self.nodes, self.edges = nodes, edges
        self._kind = dict(zip(nodes.ids, nodes.kinds))
        self._adjacency: dict[str, dict[str, set[str]]] | None = None

    @property
    def _nbrs(self) -> dict[str, dict[str, set[str]]]:
        """Neighbour -> relations, per node; built on first use (a KG build only writes tables)."""
        if self._adjacency is None:
            nbrs: dict[str, dict[str, set[str]]] = {n: {} for n in self.nodes.ids}
            ids, e = self.nodes.ids, self.edges
            for s, d, rel, directed in zip(e.src, e.dst, e.relation, e.directed):
                u, v = ids[s], ids[d]
                if u == v:
                    continue
                nbrs[u].setdefault(v, set()).add(rel)
                if not directed:
                    nbrs[v].setdefault(u, set()).add(rel)
            self._adjacency = nbrs
        return self._adjacency

    @classmethod
    def from_tables(cls, nodes: pd.DataFrame, edges: pd.DataFrame) -> "Graph":
        """A graph from one collection's rows of ``kg_nodes_*`` and one setting's rows of
        ``kg_edges_*``."""
        ns = Nodes(nodes["node_id"].tolist(), nodes["kind"].tolist(), nodes["text"].tolist(),
                   [None if pd.isna(p) else p for p in nodes["passage_id"]],
                   nodes["attributes"].tolist())
        position = {n: i for i, n in enumerate(ns.ids)}
        es = Edges(np.array([position[n] for n in edges["src"].tolist()], dtype=np.int64),
                   np.array([position[n] for n in edges["dst"].tolist()], dtype=np.int64),
                   edges["weight"].to_numpy(dtype=np.float64), edges["evidence"].tolist(),
                   edges["relation"].tolist(), edges["directed"].astype(bool).tolist(),
                   edges["qualifiers"].tolist())
        return cls(ns, es)

    def neighbors(self, node: str, relation: str | None = None,
                  kind: str | None = None) -> list[str]:
        """The node's neighbours (sorted), optionally only through ``relation`` and of
        ``kind``."""
        return sorted(v for v, rels in self._nbrs[node].items()
                      if (relation is None or relation in rels)
                      and (kind is None or self._kind[v] == kind))

    def kind(self, node: str) -> str:
        return self._kind[node]

    def n_edges(self) -> int:
        """Distinct node pairs joined by an edge (either direction)."""
        directed_pairs = sum(len(v) for v in self._nbrs.values())
        mutual = sum(1 for u, vs in self._nbrs.items() for v in vs if u in self._nbrs[v])
        return directed_pairs - mutual // 2

    def avg_neighbors(self) -> float:
        """Mean number of neighbours per node (out-neighbours for directed edges)."""
        return float(np.mean([len(v) for v in self._nbrs.values()])) if self._nbrs else 0.0

    def density(self) -> float:
        """Share of the ``n(n-1)/2`` node pairs that are joined by an edge."""
        n = len(self._nbrs)
        return self.n_edges() / (n * (n - 1) / 2) if n > 1 else 0.0

    def tables(self, collection_id: str, setting: str) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The graph as rows of ``kg_nodes_*`` and ``kg_edges_*``."""
        e = self.edges
        nodes = pd.DataFrame({"collection_id": collection_id, "node_id": self.nodes.ids,
                              "kind": self.nodes.kinds, "text": self.nodes.texts,
                              "passage_id": self.nodes.passage_ids,
                              "attributes": self.nodes.attributes}, columns=NODE_COLUMNS)
        n = len(e)
        ids_unique = len(set(self.nodes.ids)) == len(self.nodes.ids)
        edges = pd.DataFrame({
            "collection_id": _constant(collection_id, n), "setting": _constant(setting, n),
            "src": _positions(e.src, self.nodes.ids, ids_unique),
            "dst": _positions(e.dst, self.nodes.ids, ids_unique),
            "relation": _labels(e.relation), "qualifiers": _labels(e.qualifiers),
            "weight": np.asarray(e.weight, dtype=np.float64), "evidence": _labels(e.evidence),
            "directed": np.asarray(e.directed, dtype=bool)}, columns=EDGE_COLUMNS)
        return nodes, edges

    def to_networkx(self):
        """A ``networkx.MultiDiGraph`` (undirected edges both ways), for drawing and export
        (e.g. ``networkx.write_graphml``)."""
        import networkx as nx

        g = nx.MultiDiGraph()
        for n, k, t, p, a in zip(self.nodes.ids, self.nodes.kinds, self.nodes.texts,
                                 self.nodes.passage_ids, self.nodes.attributes):
            g.add_node(n, kind=k, text=t, passage_id=p or "", **_scalars(a))
        ids, e = self.nodes.ids, self.edges
        for i in range(len(e)):
            u, v = ids[e.src[i]], ids[e.dst[i]]
            if u == v:
                continue  # as in the graph itself
            data = {"relation": e.relation[i], "weight": float(e.weight[i]),
                    "evidence": e.evidence[i], **_scalars(e.qualifiers[i])}
            g.add_edge(u, v, **data)
            if not e.directed[i]:
                g.add_edge(v, u, **data)
        return g


def _constant(value: str, n: int) -> pd.Categorical:
    return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[value])


def _positions(positions: np.ndarray, ids: Sequence[str], unique: bool) -> pd.Categorical:
    """Node ids at ``positions``, coded against the graph's node list (no string per edge)."""
    if unique:
        return pd.Categorical.from_codes(np.asarray(positions, dtype=np.int64), categories=ids)
    return pd.Categorical(np.asarray(ids, dtype=object)[np.asarray(positions, dtype=np.int64)])


def _labels(values: Sequence[str]) -> pd.Categorical:
    return pd.Categorical(list(values))


def concat_edge_tables(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """``kg_edges_*`` rows stacked, text columns kept categorical (their categories unioned).

    An edge table repeats a few thousand ids and labels over millions of rows (a 748-passage
    MuSiQue collection has ~100k TF-IDF edges at n_kw=20); as categoricals it takes ~5x less
    memory than as strings, in memory and in the Parquet file (dictionary-encoded)."""
    if not frames:
        return pd.DataFrame(columns=EDGE_COLUMNS)
    columns = {}
    for column in EDGE_COLUMNS:
        parts = [f[column] for f in frames]
        if all(isinstance(p.dtype, pd.CategoricalDtype) for p in parts):
            columns[column] = pd.api.types.union_categoricals(parts, ignore_order=True)
        else:
            columns[column] = pd.concat(parts, ignore_index=True)
    return pd.DataFrame(columns, columns=EDGE_COLUMNS)


def _scalars(attributes: str) -> dict[str, Any]:
    """JSON attributes as flat scalar attributes (GraphML keeps scalars only)."""
    values = json.loads(attributes or "{}")
    return {k: v if isinstance(v, (str, int, float, bool)) else json.dumps(v)
            for k, v in values.items()}


def empty_tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    return pd.DataFrame(columns=NODE_COLUMNS), pd.DataFrame(columns=EDGE_COLUMNS)
