"""Retrieval metrics over supporting passages (paper §3/§5, HippoRAG-style recall@k)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence


def retrieval_metrics(ranked: Sequence[str], supporting: Iterable[str],
                      ks: Sequence[int]) -> list[dict[str, float]]:
    """For each ``k``: **recall** = |top-k ∩ S| / |S|, **precision** = |top-k ∩ S| / k (k
    counts slots, so a method returning fewer passages is not rewarded), **sp_em** = 1 when
    all of S is in the top k."""
    support = set(supporting)
    if not support:
        raise ValueError("no supporting passages: retrieval metrics are undefined")
    rows = []
    for k in ks:
        hit = len(set(ranked[:k]) & support)
        rows.append({"k": k, "recall": hit / len(support), "precision": hit / k,
                     "sp_em": float(hit == len(support))})
    return rows
