"""KNN-ST / KNN-MDR KG (paper §3): each passage points to its k most similar passages."""
from __future__ import annotations

import numpy as np
import torch

from kgp_kedro.graphs.edges import Edges
from kgp_kedro.models.devices import resolve_device


def build_knn_graph(embeddings: np.ndarray, k: int, device: str = "auto",
                    metric: str = "cosine", ann: dict | None = None) -> Edges:
    """K-nearest-neighbour graph over passage embeddings.

    Similarity is cosine (``metric='cosine'``, as the reference code does for sentence
    transformers) or the inner product (``'dot'``, for MDR encoders). Each passage gets
    directed edges to its ``k`` most similar *other* passages (``min(k, n-1)``), weighted by
    the similarity. Ties go to the lower passage index, on CPU and GPU alike. With ``ann``
    (:class:`~kgp_kedro.retrieval.ann.VectorIndex` options) the neighbours come from a faiss
    index instead of the exact ``n × n`` similarity matrix (large, pooled collections).
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if metric not in ("cosine", "dot"):
        raise ValueError(f"metric must be 'cosine' or 'dot', got {metric!r}")
    n = len(embeddings)
    kk = min(k, n - 1)
    if kk < 1:
        empty = np.array([], dtype=np.int64)
        return Edges(empty, empty, np.array([]), [], kind="knn", directed=True)
    if ann is not None:
        return _ann_knn_graph(np.asarray(embeddings, dtype=np.float32), kk, metric, ann)
    x = torch.as_tensor(np.asarray(embeddings, dtype=np.float32), device=resolve_device(device))
    if metric == "cosine":
        x = torch.nn.functional.normalize(x, dim=1)
    sim = x @ x.T
    sim.fill_diagonal_(float("-inf"))
    # stable descending sort = ties resolved by index, identically on every device
    values, index = torch.sort(sim, dim=1, descending=True, stable=True)
    dst = index[:, :kk].cpu().numpy().reshape(-1)
    weight = values[:, :kk].cpu().numpy().reshape(-1).astype(np.float64)
    src = np.repeat(np.arange(n), kk)
    return Edges(src=src, dst=dst.astype(np.int64), weight=weight, evidence=[""] * len(src),
                 kind="knn", directed=True)


def _ann_knn_graph(x: np.ndarray, k: int, metric: str, ann: dict) -> Edges:
    from kgp_kedro.retrieval.ann import VectorIndex

    if metric == "cosine":
        x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    scores, positions = VectorIndex(x, **ann).search(x, k + 1)
    src, dst, weight = [], [], []
    for i, (row, row_scores) in enumerate(zip(positions, scores)):
        kept = [(j, s) for j, s in zip(row, row_scores) if j != i and j >= 0][:k]
        src.extend([i] * len(kept))
        dst.extend(j for j, _ in kept)
        weight.extend(s for _, s in kept)
    return Edges(src=np.asarray(src, dtype=np.int64), dst=np.asarray(dst, dtype=np.int64),
                 weight=np.asarray(weight, dtype=np.float64), evidence=[""] * len(src),
                 kind="knn", directed=True)
