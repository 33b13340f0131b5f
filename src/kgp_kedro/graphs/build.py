"""Building one KG variant over every collection, and reading it back per collection."""
from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence

import pandas as pd

from kgp_kedro import parallel
from kgp_kedro.config.base import Params
from kgp_kedro.corpus.collection import Collection, iter_collections
from kgp_kedro.graphs.builders.base import GraphBuilder
from kgp_kedro.graphs.model import EDGE_COLUMNS, NODE_COLUMNS, Graph, concat_edge_tables
from kgp_kedro.graphs.structure import add_structure, has_structure
from kgp_kedro.models.embeddings import EmbeddingLookup

logger = logging.getLogger(__name__)


def build_variant(passages: pd.DataFrame, builder: GraphBuilder,
                  settings: Sequence[tuple[str, Params]], name: str,
                  embeddings: EmbeddingLookup | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(kg_nodes, kg_edges)`` of every collection under every density setting; a collection
    read from files (pages, tables) also gets the structural layer
    (:mod:`kgp_kedro.graphs.structure`). The collections are built one by one, or spread over a
    Dask cluster's workers when one is active (:func:`kgp_kedro.parallel.map`)."""
    structured = ({str(c): g for c, g in passages.groupby("collection_id", sort=False)}
                  if has_structure(passages) else {})
    collections = [(attach(c, None, None, embeddings), structured.get(c.collection_id))
                   for c in iter_collections(passages)]
    built = parallel.map(_build_collection, collections, builder, settings, desc=f"kg {name}")
    nodes = [rows for graphs in built for _, _, rows, _ in graphs]
    edges = [rows for graphs in built for _, _, _, rows in graphs]
    for label, _ in settings:
        total = sum(seconds for graphs in built for lbl, seconds, _, _ in graphs if lbl == label)
        logger.info("kg %s [%s]: %.1f ms per collection (%d collections)", name, label,
                    1000 * total / max(len(collections), 1), len(collections))
    if not edges:
        return pd.DataFrame(columns=NODE_COLUMNS), pd.DataFrame(columns=EDGE_COLUMNS)
    node_table = (pd.concat(nodes, ignore_index=True)
                  .drop_duplicates(["collection_id", "node_id"]).reset_index(drop=True))
    return node_table, concat_edge_tables(edges)


def _build_collection(item: tuple[Collection, pd.DataFrame | None], builder: GraphBuilder,
                      settings: Sequence[tuple[str, Params]]
                      ) -> list[tuple[str, float, pd.DataFrame, pd.DataFrame]]:
    """One collection's graph under each setting: ``(label, build seconds, node rows, edge
    rows)``; ``item`` is the collection and, when read from files, its passages' rows."""
    collection, structure = item
    graphs = []
    for label, setting in settings:
        start = time.perf_counter()
        graph = builder.build(collection, setting)
        if structure is not None:
            graph = add_structure(graph, structure)
        seconds = time.perf_counter() - start
        graphs.append((label, seconds, *graph.tables(collection.collection_id, label)))
    return graphs


class GraphTables:
    """One KG variant's tables, served as a :class:`Graph` per collection and setting."""

    def __init__(self, nodes: pd.DataFrame, edges: pd.DataFrame) -> None:
        self._nodes = dict(tuple(nodes.groupby("collection_id", sort=False)))
        self._edges = dict(tuple(edges.groupby(["setting", "collection_id"], sort=False)))
        self.settings = list(dict.fromkeys(edges["setting"]))
        self._empty_nodes, self._empty_edges = nodes.iloc[0:0], edges.iloc[0:0]

    def graph(self, collection_id: str, setting: str) -> Graph:
        return Graph.from_tables(self._nodes.get(collection_id, self._empty_nodes),
                                 self._edges.get((setting, collection_id), self._empty_edges))

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
