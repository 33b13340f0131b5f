"""KG quality (paper §3 "verify the constructed KGs", Figure 5, §8.6 Figure 9, Table 3)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kgp_kedro.graphs.edges import Adjacency


@dataclass(frozen=True)
class NeighbourhoodScores:
    """How well the seeds' neighbourhood C1 covers a question's supporting passages S."""

    n_seeds: int
    n_candidates: int   # |C1|
    n_supporting: int   # |S|
    n_hit: int          # |C1 ∩ S|
    sf_em: float        # 1.0 when S ⊆ C1
    precision: float    # |C1 ∩ S| / |C1|
    recall: float       # |C1 ∩ S| / |S|


def neighbourhood_scores(adjacency: Adjacency, seeds: Iterable[str],
                         supporting: Iterable[str]) -> NeighbourhoodScores:
    """Coverage of the supporting passages by the seeds and their neighbours (paper §3, Fig. 5).

    ``C1 = seeds ∪ N(seeds)`` (successors for directed KNN edges). Per question:
    **SF-EM** is 1 when every supporting passage is in C1, else 0 (averaged over questions it is
    the share of questions whose supporting facts are all covered); **precision** is
    ``|C1 ∩ S| / |C1|``; **recall** is ``|C1 ∩ S| / |S|``. A question without supporting
    passages (an unlabelled user question) has undefined scores and raises ``ValueError``.
    """
    seeds = list(dict.fromkeys(seeds))
    support = set(supporting)
    if not support:
        raise ValueError("no supporting passages: SF-EM, precision and recall are undefined")
    candidates = set(seeds)
    for seed in seeds:
        candidates |= adjacency.neighbors(seed)
    hit = len(candidates & support)
    return NeighbourhoodScores(
        n_seeds=len(seeds), n_candidates=len(candidates), n_supporting=len(support), n_hit=hit,
        sf_em=float(hit == len(support)), precision=hit / len(candidates) if candidates else 0.0,
        recall=hit / len(support))


def graph_stats(adjacency: Adjacency) -> dict[str, float]:
    """Size and density of one collection's graph (paper Table 3).

    ``density`` is the share of node pairs joined by an edge, ``|E| / (n(n-1)/2)`` over
    distinct pairs. The reference code calls ``networkx.density`` on a multigraph with one edge
    per shared keyword, which counts a pair once per keyword; ours counts it once.
    """
    return {"n_nodes": len(adjacency.nodes), "n_edges": adjacency.n_edges(),
            "avg_neighbors": adjacency.avg_neighbors(), "density": adjacency.density()}
