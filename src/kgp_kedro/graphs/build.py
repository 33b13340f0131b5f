"""Building one KG variant over every collection, and reading it back per collection."""
from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from itertools import islice

import pandas as pd

from kgp_kedro.plumbing import parallel
from kgp_kedro.config.base import Params
from kgp_kedro.corpus.collection import Collection, iter_collections
from kgp_kedro.graphs.builders.base import GraphBuilder
from kgp_kedro.graphs.cache import GraphCache
from kgp_kedro.graphs.edge_table import EdgeTable
from kgp_kedro.graphs.model import NODE_COLUMNS, Graph, concat_edge_tables
from kgp_kedro.graphs.structure import add_structure, has_structure
from kgp_kedro.plumbing.memory import release_free_memory
from kgp_kedro.models.embeddings import EmbeddingLookup
from kgp_kedro.plumbing.progress import Progress

logger = logging.getLogger(__name__)


def build_variant(passages: pd.DataFrame, builder: GraphBuilder,
                  settings: Sequence[tuple[str, Params]], name: str,
                  embeddings: EmbeddingLookup | None = None,
                  cache: GraphCache | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(kg_nodes, kg_edges)`` of every collection under every density setting, in memory
    (:func:`stream_variant` for a run that must not hold every edge at once). With ``cache``,
    a collection built before from the same content and parameters is read back from it."""
    nodes, edges = [], []
    for node_rows, edge_rows in _collection_tables(passages, builder, settings, name, embeddings,
                                                   cache):
        nodes.append(node_rows)
        edges.extend(edge_rows)
    return _node_table(nodes), concat_edge_tables(edges)


def stream_variant(passages: pd.DataFrame, builder: GraphBuilder,
                   settings: Sequence[tuple[str, Params]], name: str,
                   embeddings: EmbeddingLookup | None = None,
                   cache: GraphCache | None = None) -> tuple[pd.DataFrame, EdgeTable]:
    """:func:`build_variant` with the edges written to a file one collection and setting at a
    time (an :class:`EdgeTable`), so memory grows with the largest collection only."""
    nodes: list[pd.DataFrame] = []

    def edge_chunks() -> Iterator[pd.DataFrame]:
        for node_rows, edge_rows in _collection_tables(passages, builder, settings, name,
                                                       embeddings, cache):
            nodes.append(node_rows)
            yield from edge_rows

    edges = EdgeTable.spill(edge_chunks())
    return _node_table(nodes), edges


# collections built per round on a Dask cluster: the most its workers hold between two
# writes. Without a cluster a round is one collection, so memory holds one collection's graphs
# (a round of 64 paper-size MuSiQue collections' TF-IDF edges is several GB)
COLLECTIONS_PER_TASK_ROUND = 64


def _collection_tables(passages: pd.DataFrame, builder: GraphBuilder,
                       settings: Sequence[tuple[str, Params]], name: str,
                       embeddings: EmbeddingLookup | None, cache: GraphCache | None
                       ) -> Iterator[tuple[pd.DataFrame, list[pd.DataFrame]]]:
    """Per collection, in order: its ``kg_nodes`` rows and its ``kg_edges`` rows under each
    setting; a collection read from files (pages, tables) also gets the structural layer
    (:mod:`kgp_kedro.graphs.structure`). The collections are built
    :data:`COLLECTIONS_PER_TASK_ROUND` at a time, one task each, spread over a Dask cluster's
    workers when one is active (:func:`kgp_kedro.plumbing.parallel.map`), so memory holds one round;
    without a cluster one at a time.
    A collection found in ``cache`` (same content, builder and settings) is read back instead
    of built, and every one built is stored there."""
    structured = ({str(c): g for c, g in passages.groupby("collection_id", sort=False)}
                  if has_structure(passages) else {})
    seconds = {label: 0.0 for label, _ in settings}
    n = passages["collection_id"].nunique()
    n_built = 0
    collections = iter_collections(passages)
    per_round = COLLECTIONS_PER_TASK_ROUND if parallel.active_client() is not None else 1
    with Progress(f"kg {name}", n, log=logger) as progress:
        while round_ := [(attach(c, None, None, embeddings), structured.get(c.collection_id))
                         for c in islice(collections, per_round)]:
            keys = [cache.key(*item) for item in round_] if cache is not None else []
            found = [cache.get(key) for key in keys] if cache is not None else [None] * len(round_)
            progress.update(sum(hit is not None for hit in found))   # read back: done
            built = iter(parallel.map(_build_collection,
                                      [item for item, hit in zip(round_, found) if hit is None],
                                      builder, settings, progress=progress))
            for i, hit in enumerate(found):
                if hit is not None:
                    yield hit
                    continue
                graphs = next(built)
                n_built += 1
                for label, took, _, _ in graphs:
                    seconds[label] += took
                tables = (pd.concat([rows for _, _, rows, _ in graphs], ignore_index=True)
                          .drop_duplicates("node_id").reset_index(drop=True),
                          [rows for _, _, _, rows in graphs])
                if cache is not None:
                    cache.put(keys[i], *tables)
                yield tables
    if cache is not None:
        logger.info("kg %s: %s", name, cache.describe())
    for label, total in seconds.items():
        logger.info("kg %s [%s]: %.1f ms per collection (%d collections built)", name, label,
                    1000 * total / max(n_built, 1), n_built)


def _node_table(nodes: list[pd.DataFrame]) -> pd.DataFrame:
    if not nodes:
        return pd.DataFrame(columns=NODE_COLUMNS)
    return pd.concat(nodes, ignore_index=True).reset_index(drop=True)


def _build_collection(item: tuple[Collection, pd.DataFrame | None], builder: GraphBuilder,
                      settings: Sequence[tuple[str, Params]]
                      ) -> list[tuple[str, float, pd.DataFrame, pd.DataFrame]]:
    """One collection's graph under each setting: ``(label, build seconds, node rows, edge
    rows)``; ``item`` is the collection and, when read from files, its passages' rows. The
    memory its build freed goes back to the system (:func:`release_free_memory`), or the
    allocator would keep a little more of it after every collection."""
    collection, structure = item
    graphs = []
    for label, setting in settings:
        start = time.perf_counter()
        graph = builder.build(collection, setting)
        if structure is not None:
            graph = add_structure(graph, structure)
        seconds = time.perf_counter() - start
        graphs.append((label, seconds, *graph.tables(collection.collection_id, label)))
    release_free_memory()
    return graphs


class GraphTables:
    """One KG variant's tables, served as a :class:`Graph` per collection and setting; the
    edges either a table in memory or an :class:`EdgeTable` read one collection and setting
    at a time."""

    def __init__(self, nodes: pd.DataFrame, edges: pd.DataFrame | EdgeTable) -> None:
        self._node_table = nodes   # sliced per collection on demand, not copied up front
        self._nodes = nodes.groupby("collection_id", sort=False).indices
        if isinstance(edges, pd.DataFrame):
            self._edges = dict(tuple(edges.groupby(["setting", "collection_id"], sort=False)))
            self.settings = list(dict.fromkeys(edges["setting"]))
            self._empty_edges = edges.iloc[0:0]
            self._table = None
        else:
            self.settings, self._table = edges.settings, edges
        self._empty_nodes = nodes.iloc[0:0]

    def _edge_rows(self, collection_id: str, setting: str) -> pd.DataFrame:
        if self._table is not None:
            return self._table.chunk(collection_id, setting)
        return self._edges.get((setting, collection_id), self._empty_edges)

    def graph(self, collection_id: str, setting: str) -> Graph:
        rows = self._nodes.get(collection_id)
        nodes = self._empty_nodes if rows is None else self._node_table.iloc[rows]
        return Graph.from_tables(nodes, self._edge_rows(collection_id, setting))

    def graphs(self, setting: str) -> Iterator[tuple[str, Graph]]:
        for cid in self._nodes:
            yield cid, self.graph(cid, setting)


def attach(collection: Collection, tables: GraphTables | None, setting: str | None,
           embeddings: EmbeddingLookup | None) -> Collection:
    """``collection`` with its graph (``setting`` of ``tables``) and passage embeddings."""
    if tables is not None and setting is not None:
        collection.graph = tables.graph(collection.collection_id, setting)
    if embeddings is not None:
        collection.vectors = embeddings.matrix(collection.passage_ids)
        collection.embedding_model = embeddings.model
    return collection
