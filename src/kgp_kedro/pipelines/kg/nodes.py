"""Nodes of the kg stage: any registered builder, over every collection and density setting."""
from __future__ import annotations

from typing import Any

import pandas as pd

from kgp_kedro.pipelines.parameter_tree import parse_variant
from kgp_kedro.graphs.build import stream_variant
from kgp_kedro.graphs.cache import GraphCache
from kgp_kedro.graphs.edge_table import EdgeTable
from kgp_kedro.models.embeddings import EmbeddingLookup


def featurize_passages(passages: pd.DataFrame, variant: dict[str, Any],
                       name: str) -> pd.DataFrame:
    """``passage_<features>_<variant>``: the builder's per-passage features (e.g. entity
    mentions), computed once per distinct passage."""
    spec = parse_variant(name, variant, f"kg.variants.{name}")
    return spec.make_builder().featurize(passages)


def build_graphs(passages: pd.DataFrame, variant: dict[str, Any], cache_dir: str | None,
                 name: str, features: pd.DataFrame | None = None,
                 embeddings: pd.DataFrame | None = None,
                 encoder: dict[str, Any] | None = None) -> tuple[pd.DataFrame, EdgeTable]:
    """``kg_nodes_<variant>`` and ``kg_edges_<variant>``: every collection's graph under every
    setting of the variant's sweep, the edges written one collection and setting at a time.
    A collection whose content and parameters are unchanged since a run that stored it in
    ``kg.cache_dir`` is read back from there, not built (null: every collection built)."""
    spec = parse_variant(name, variant, f"kg.variants.{name}")
    lookup = EmbeddingLookup(embeddings, encoder["model"]) if embeddings is not None else None
    builder = spec.make_builder(features)
    cache = GraphCache(cache_dir, builder, spec.settings) if cache_dir is not None else None
    return stream_variant(passages, builder, spec.settings, name, lookup, cache)
