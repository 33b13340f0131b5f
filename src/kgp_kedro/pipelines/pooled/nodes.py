"""Nodes of the pooled pipeline."""
from __future__ import annotations

import logging
import time
from typing import Any

import numpy as np
import pandas as pd

from kgp_kedro.corpus import pool_collections
from kgp_kedro.graphs import build_knn_graph, edge_frame

logger = logging.getLogger(__name__)


def pool_questions(questions: pd.DataFrame, passages: pd.DataFrame
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pooled questions and passages: one collection per source."""
    pooled_questions, pooled_passages = pool_collections(questions, passages)
    for source, group in pooled_passages.groupby("source", sort=False):
        logger.info("pooled %s: %d questions share %d passages", source,
                    (pooled_questions["source"] == source).sum(), len(group))
    return pooled_questions, pooled_passages


def build_pooled_knn_graph(pooled_passages: pd.DataFrame, embeddings: pd.DataFrame,
                           pooled: dict[str, Any]) -> pd.DataFrame:
    """The KNN KG of every pooled collection (``pooled.graph.k`` neighbours a passage), from a
    faiss index (``pooled.ann``) instead of the quadratic similarity matrix."""
    lookup = dict(zip(embeddings["passage_id"], embeddings["embedding"]))
    k, metric = int(pooled["graph"]["k"]), pooled["graph"].get("metric", "cosine")
    frames = []
    for cid, group in pooled_passages.groupby("collection_id", sort=False):
        ids = group["passage_id"].tolist()
        start = time.perf_counter()
        edges = build_knn_graph(np.stack([lookup[p] for p in ids]), k, metric=metric,
                                ann=pooled["ann"])
        logger.info("pooled KNN KG of %s: %d passages, k=%d, %.1f s (faiss %s)", cid, len(ids),
                    k, time.perf_counter() - start, pooled["ann"].get("kind", "hnsw"))
        frames.append(edge_frame(edges, ids, cid, f"k={k}"))
    return pd.concat(frames, ignore_index=True)
