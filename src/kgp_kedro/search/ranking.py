"""The one ranking rule of every search: best score first, ties to the earlier position."""
from __future__ import annotations

import numpy as np


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions and scores of the ``k`` best of ``scores`` (a stable descending sort)."""
    order = np.argsort(-scores, kind="stable")[:k]
    return order, scores[order]
