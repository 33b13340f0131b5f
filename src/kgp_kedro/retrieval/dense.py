"""Dense baselines (paper §8.2): exact inner-product search (DPR) and MDR's two-hop beam search."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from kgp_kedro.models.devices import resolve_device


def inner_product_scores(queries: np.ndarray, passages: np.ndarray,
                         device: str = "auto") -> np.ndarray:
    """``queries @ passages.T`` as one batched tensor product on ``device``."""
    q = torch.as_tensor(np.atleast_2d(queries), dtype=torch.float32, device=resolve_device(device))
    p = torch.as_tensor(passages, dtype=torch.float32, device=q.device)
    return (q @ p.T).cpu().numpy().astype(np.float64)


def exact_search(queries: np.ndarray, passage_vectors: np.ndarray, top_k: int,
                 device: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """``(scores, positions)`` of the ``top_k`` passages by inner product for each query, best
    first (ties: earlier passage), as :meth:`VectorIndex.search` returns them."""
    scores = inner_product_scores(queries, passage_vectors, device)
    order = np.argsort(-scores, axis=1, kind="stable")[:, :top_k]
    return np.take_along_axis(scores, order, axis=1), order


@dataclass(frozen=True)
class HopPair:
    first: int
    second: int
    score: float   # product of the two hops' scores


Search = Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]]


def mdr_search(question: str, passages: Sequence[str], encode: Callable[[Sequence[str]], np.ndarray],
               search: Search, first_hop: int = 15, second_hop: int = 3,
               top_k: int = 30) -> tuple[np.ndarray, np.ndarray, list[HopPair]]:
    """MDR two-hop beam search (paper §8.2; Xiong et al. 2020).

    Hop 1: the ``first_hop`` passages nearest the question. Hop 2: for each, the question
    concatenated with that passage is encoded and its ``second_hop`` nearest *other* passages
    taken. The ``first_hop × second_hop`` pairs are ranked by the product of their two scores;
    the passages of the best pairs, first hop before second, make the ``top_k`` context.
    ``search(queries, k)`` gives ``(scores, positions)`` per query: exact
    (:func:`exact_search`) or a faiss index. Returns positions, the score of the pair that
    brought each passage, and the ranked pairs.
    """
    if len(passages) == 0:
        return np.array([], dtype=np.int64), np.array([]), []
    first_scores, first = (a[0] for a in search(encode([question]), first_hop))
    expanded = encode([f"{question} {passages[i]}" for i in first])
    second_scores, second = search(expanded, second_hop + 1)
    pairs = []
    for row, (p1, s1) in enumerate(zip(first, first_scores)):
        hops = [(p2, s2) for p2, s2 in zip(second[row], second_scores[row])
                if p2 != p1 and p2 >= 0][:second_hop]
        pairs.extend(HopPair(int(p1), int(p2), float(s1 * s2)) for p2, s2 in hops)
    pairs.sort(key=lambda p: -p.score)
    ranked: dict[int, float] = {}
    for pair in pairs:
        for p in (pair.first, pair.second):
            ranked.setdefault(p, pair.score)
    positions = np.array(list(ranked)[:top_k], dtype=np.int64)
    return positions, np.array([ranked[p] for p in positions]), pairs
