"""Exact dense search: inner products of query and passage vectors as one batched tensor
product on ``device`` (CUDA when present), the same results on CPU."""
from __future__ import annotations

import numpy as np

from kgp_kedro.models.devices import resolve_device
from kgp_kedro.search.ranking import ranked


def inner_product_scores(queries: np.ndarray, passages: np.ndarray,
                         device: str = "auto") -> np.ndarray:
    """``queries @ passages.T`` as one batched tensor product on ``device``."""
    import torch

    q = torch.as_tensor(np.atleast_2d(queries), dtype=torch.float32, device=resolve_device(device))
    p = torch.as_tensor(passages, dtype=torch.float32, device=q.device)
    return (q @ p.T).cpu().numpy().astype(np.float64)


def exact_search(queries: np.ndarray, passage_vectors: np.ndarray, top: int,
                 device: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """``(scores, positions)`` of the ``top`` passages by inner product for each query, best
    first (:func:`~kgp_kedro.search.ranking.ranked`: ties, at its digits, to the earlier
    passage), as :meth:`VectorIndex.search` returns them."""
    scores = inner_product_scores(queries, passage_vectors, device)
    order = ranked(scores, axis=1)[:, :top]
    return np.take_along_axis(scores, order, axis=1), order
