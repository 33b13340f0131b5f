"""Personalized PageRank by power iteration over a weighted undirected graph (scipy.sparse),
many reset vectors at once (HippoRAG / HippoRAG 2's graph search).

For a symmetric non-negative adjacency ``A`` (n × n) the walk moves from node ``i`` to ``j``
with probability ``A[i, j] / Σ_k A[i, k]`` (``W``, row-stochastic). With ``damping`` ``d``
(the probability of following an edge; ``1 - d`` is the restart probability) and a reset
distribution ``r`` (non-negative, normalised to sum 1), the personalized PageRank ``p`` is the
fixed point of

    p = d · Wᵀ p + d · (Σ_{i dangling} p_i) · r + (1 - d) · r

where a dangling node (no edge) restarts from ``r``, as igraph's PRPACK solver (HippoRAG's)
does. Power iteration from ``p₀ = r`` stops a column when its L1 change falls below ``tol``
(that column is then left as it is, so each column gets the bits it would get alone), or after
``max_iter`` rounds. ``p`` sums to 1.
"""
from __future__ import annotations

import numpy as np
from scipy import sparse


def transition_matrix(adjacency: sparse.spmatrix) -> tuple[sparse.csr_matrix, np.ndarray]:
    """``Wᵀ`` (CSR, so that ``Wᵀ @ p`` is one product) of a symmetric adjacency and the mask of
    its dangling nodes (no edge)."""
    adjacency = sparse.csr_matrix(adjacency, dtype=np.float64)
    if adjacency.shape[0] != adjacency.shape[1]:
        raise ValueError(f"adjacency must be square, got {adjacency.shape}")
    if adjacency.nnz and adjacency.data.min() < 0:
        raise ValueError("adjacency weights must be non-negative")
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    dangling = degree <= 0
    inverse = np.divide(1.0, degree, out=np.zeros_like(degree), where=~dangling)
    walk = sparse.diags(inverse) @ adjacency          # W: row i divided by its degree
    return sparse.csr_matrix(walk.T), dangling


def personalized_pagerank(transition: sparse.csr_matrix, dangling: np.ndarray,
                          reset: np.ndarray, damping: float, tol: float = 1e-8,
                          max_iter: int = 100) -> np.ndarray:
    """The personalized PageRank (n × q) of each column of ``reset`` (n × q, or n) over the
    walk of :func:`transition_matrix` (see the module). A zero reset column gives zeros."""
    if not 0.0 <= damping < 1.0:
        raise ValueError(f"damping must be in [0, 1), got {damping}")
    r = np.asarray(reset, dtype=np.float64)
    vector = r.ndim == 1
    r = r.reshape(len(r), -1).copy()
    if (r < 0).any():
        raise ValueError("reset weights must be non-negative")
    total = r.sum(axis=0)
    r[:, total > 0] /= total[total > 0]
    p = r.copy()
    active = np.flatnonzero(total > 0)
    for _ in range(max_iter):
        if not len(active):
            break
        current = p[:, active]
        lost = current[dangling].sum(axis=0)
        nxt = damping * (transition @ current) + (damping * lost + (1 - damping)) * r[:, active]
        change = np.abs(nxt - current).sum(axis=0)
        p[:, active] = nxt
        active = active[change >= tol]
    return p[:, 0] if vector else p
