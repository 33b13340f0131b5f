"""Nodes of the pooled stage."""
from __future__ import annotations

import logging
from typing import Any

import pandas as pd

from kgp_kedro.pipelines.parameter_tree import parse_variant
from kgp_kedro.corpus import pool_collections
from kgp_kedro.graphs.build import build_variant
from kgp_kedro.models.embeddings import EmbeddingLookup

logger = logging.getLogger(__name__)


def pool_questions(questions: pd.DataFrame, passages: pd.DataFrame
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pooled questions and passages: one collection per source."""
    pooled_questions, pooled_passages = pool_collections(questions, passages)
    for source, group in pooled_passages.groupby("source", sort=False):
        logger.info("pooled %s: %d questions share %d passages", source,
                    (pooled_questions["source"] == source).sum(), len(group))
    return pooled_questions, pooled_passages


def build_pooled_graph(pooled_passages: pd.DataFrame, embeddings: pd.DataFrame,
                       graph: dict[str, Any], ann: dict[str, Any], encoder: dict[str, Any]
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The KNN KG of every pooled collection (``pooled.graph``), its neighbours from a faiss
    index (``pooled.ann``) instead of the quadratic similarity matrix."""
    variant = parse_variant("pooled", graph, "pooled.graph")
    return build_variant(pooled_passages, variant.make_builder(ann=ann), variant.settings,
                         "pooled", EmbeddingLookup(embeddings, encoder["model"]))
