"""The one ranking rule of every search: best score first, scores compared at
:data:`RANK_DIGITS` significant digits, ties to the earlier position.

Float kernels differ between CPUs (and PyTorch thread counts) in the last bits of a score, so
two passages whose scores differ only there could swap places from one machine to the next.
Compared at 6 significant digits (fp32 holds about 7), such near-ties are ties, broken by a key
that is the same everywhere: the position of the candidate in its collection (the passage
order of the data files) or candidate list. Scores that really differ keep their order."""
from __future__ import annotations

import numpy as np

# significant digits a score is compared at before ranking (every retriever, agent, KNN edge)
RANK_DIGITS = 6


def rank_key(scores: np.ndarray) -> np.ndarray:
    """``scores`` (float64) rounded to :data:`RANK_DIGITS` significant digits; zeros, infinities
    and NaN unchanged."""
    scores = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(scores) & (scores != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        exponent = np.floor(np.log10(np.abs(np.where(finite, scores, 1.0))))
    scale = 10.0 ** (RANK_DIGITS - 1 - exponent)
    return np.where(finite, np.round(scores * scale) / scale, scores)


def ranked(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Positions along ``axis``, best :func:`rank_key` first, ties to the earlier position."""
    return np.argsort(-rank_key(scores), axis=axis, kind="stable")


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions and scores of the ``k`` best of ``scores`` (:func:`ranked`)."""
    order = ranked(scores)[:k]
    return order, scores[order]
