"""Algorithm 1 of the KGP paper: LLM-guided KG traversal for content questions (§4)."""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from kgp_kedro.retrievers.base import Visit

# scores the candidates (node ids) for extending a path (node ids, seed first): Eq. (1)
Scorer = Callable[[Sequence[str], Sequence[str]], np.ndarray]


def traverse(seeds: Sequence[str], seed_scores: Sequence[float],
             neighbors: Callable[[str], Iterable[str]], score: Scorer, branching_factor: int,
             budget: int, max_hops: int) -> list[Visit]:
    """Retrieve up to ``budget`` passages by Algorithm 1.

    Lines 1-4: the seeds start one reasoning path each, and each path's candidates are the
    seed's neighbours. Lines 5-12: dequeue the earliest path ``P_i`` and its candidates
    ``C_i``; ``score`` ranks ``C_i`` given ``P_i`` (Eq. 1, the traversal agent); the top
    ``branching_factor`` are visited, each extending ``P_i`` and enqueueing its own
    neighbours; stop when ``budget`` passages are retrieved or the queues are empty. Unlike the
    reference code, paths keep growing hop after hop, up to ``max_hops`` steps past the seed.
    Candidates already retrieved are not visited twice, so the budget buys new passages.
    """
    if branching_factor < 1 or budget < 1 or max_hops < 0:
        raise ValueError("branching_factor and budget must be >= 1, max_hops >= 0")
    visits: list[Visit] = []
    seen: set[str] = set()
    for seed, seed_score in zip(seeds, seed_scores):
        if seed not in seen and len(visits) < budget:
            seen.add(seed)
            visits.append(Visit(seed, (seed,), 0, float(seed_score)))
    queue = deque((v.path, list(neighbors(v.passage_id))) for v in visits)
    while queue and len(visits) < budget:
        path, candidates = queue.popleft()
        if len(path) > max_hops:
            continue
        candidates = [c for c in dict.fromkeys(candidates) if c not in seen]
        if not candidates:
            continue
        scores = np.asarray(score(path, candidates), dtype=np.float64)
        for i in np.argsort(-scores, kind="stable")[:branching_factor]:
            v = candidates[i]
            seen.add(v)
            visits.append(Visit(v, (*path, v), len(path), float(scores[i])))
            queue.append(((*path, v), list(neighbors(v))))
            if len(visits) >= budget:
                break
    return visits
