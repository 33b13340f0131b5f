"""Passage knowledge graphs (paper §3): TF-IDF keywords, KNN embeddings, linked entities."""
from kgp_kedro.graphs.collection import CollectionView, iter_collections, sweep_settings
from kgp_kedro.graphs.edges import EDGE_COLUMNS, Adjacency, edge_frame, shared_feature_edges
from kgp_kedro.graphs.entity_graph import build_entity_graph
from kgp_kedro.graphs.knn import build_knn_graph
from kgp_kedro.graphs.linking import (EntityLinker, Mention, OfflineEntityLinker,
                                      TagMeEntityLinker, make_linker, normalise_entity)
from kgp_kedro.graphs.tfidf import build_tfidf_graph, extract_tfidf_keywords

__all__ = [
    "EDGE_COLUMNS", "Adjacency", "CollectionView", "iter_collections", "sweep_settings", "EntityLinker", "Mention", "OfflineEntityLinker",
    "TagMeEntityLinker", "build_entity_graph", "build_knn_graph", "build_tfidf_graph",
    "edge_frame", "extract_tfidf_keywords", "make_linker", "normalise_entity",
    "shared_feature_edges",
]
