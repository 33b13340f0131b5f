"""Algorithm 1 of the KGP paper: LLM-guided KG traversal for content questions (§4, §8.2).

The traversal of one question is a *walk*: a generator that yields the scoring requests of a
step (``(path, candidates)`` pairs, node ids, seed first), receives one score array per request
(Eq. 1, the traversal agent) and finally returns its :class:`Visit` list. Walks advance level
by level, so the requests of one hop do not depend on each other's scores; that lets
:func:`traverse_many` advance the walks of many questions together, one batched scoring call
per round for all of them, with exactly the visits :func:`traverse` gives one question at a
time (the agent must score a candidate independently of the questions batched beside it).

Two modes (``mode``):

``paper`` (§8.2: "In the 1st-hop retrieval, we select 10 passages and in 2nd-hop retrieval,
we select 3 passages, which totally forms 30 reasoning paths. Note that passages in the
1st-hop retrieval are allowed to overlap with the ones in the 2nd-hop retrieval"). The budget counts
**reasoning paths**. The seeds start one path each (at most ``budget`` of them). At each hop
up to ``max_hops``, every path that grew at the previous hop is offered the neighbours of its
last passage that are not already on the path (a path never repeats a passage; different
paths may share passages, and a seed may be another path's second passage). In rank order,
each such path branches into its agent's top ``min(branching_factor, candidates, slots - rest)``
candidates, where ``slots`` is the path budget not yet given out (the paths that stopped keep
one slot each) and ``rest`` the number of growing paths after it: each path keeps at least one
child, so the path count never exceeds the budget. A path with no candidate stops where it is.
With 10 seeds, branching 3, budget 30 and ``max_hops`` 1 that is the paper's 30 paths of two
passages; with ``max_hops`` 2 the 30 paths each grow by their best next passage (the budget is
already spent, so no path branches), giving 30 paths of three passages. The result is one
visit per final path, in tree order (seed rank, then the agent's rank at each hop): its
``passage_id`` is the path's last passage, ``hop`` its length minus one, ``score`` the agent's
score of its last step (the seed's TF-IDF score for a seed left alone).

``distinct`` (the reference code's queue, with a hop limit that applies). The budget counts
**distinct passages**; every passage is retrieved once. The seeds come first (at most
``budget``). Hop ``h`` (1..``max_hops``) may add ``⌈remaining budget / hops left⌉`` passages:
the paths that reached a passage at hop ``h-1``, in rank order, are each offered the
neighbours of their last passage not retrieved before hop ``h``; each visits its agent's top
``branching_factor`` of them, skipping a passage an earlier path already took at this hop,
until the hop's share is spent (the agent scores the paths in rounds, as few at a time as can
fill what is left of the share). Budget a hop could not use (too few candidates) passes to the
next. With 10 seeds, branching 3, budget 30 and ``max_hops`` 2: seeds 1-3 branch three ways
and seed 4 once (10 passages at hop 1), then the first three hop-1 passages branch three ways
and the fourth once (10 at hop 2). With ``max_hops`` 1 this is the reference code's FIFO queue
(the first 7 seeds branch, 20 passages at hop 1). One visit per passage, in visit order.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import Literal

import numpy as np

from kgp_kedro.retrievers.base import Visit
from kgp_kedro.search.ranking import ranked

Path = tuple[str, ...]
Step = tuple[Path, list[str]]          # a path and the candidates that could extend it
Walk = Generator[list[Step], list[np.ndarray], list[Visit]]
Mode = Literal["paper", "distinct"]
MODES = ("paper", "distinct")

# scores the candidates (node ids) for extending a path (node ids, seed first): Eq. (1)
Scorer = Callable[[Sequence[str], Sequence[str]], np.ndarray]


def _check(branching_factor: int, budget: int, max_hops: int, mode: str) -> None:
    if branching_factor < 1 or budget < 1 or max_hops < 0:
        raise ValueError("branching_factor and budget must be >= 1, max_hops >= 0")
    if mode not in MODES:
        raise ValueError(f"traversal mode {mode!r}: expected one of {', '.join(MODES)}")


def walk(seeds: Sequence[str], seed_scores: Sequence[float],
         neighbors: Callable[[str], Iterable[str]], branching_factor: int, budget: int,
         max_hops: int, mode: Mode = "paper") -> Walk:
    """The walk of one question (see the module docstring for both modes): a generator of
    scoring steps that returns the visits."""
    _check(branching_factor, budget, max_hops, mode)
    first: dict[str, float] = {}
    for seed, score in zip(seeds, seed_scores):
        if seed not in first and len(first) < budget:
            first[seed] = float(score)
    run = _paper if mode == "paper" else _distinct
    return run(first, neighbors, branching_factor, budget, max_hops)


def _paper(seeds: dict[str, float], neighbors: Callable[[str], Iterable[str]],
           branching_factor: int, budget: int, max_hops: int) -> Walk:
    paths: list[tuple[Path, float]] = [((s,), score) for s, score in seeds.items()]
    for hop in range(1, max_hops + 1):
        growing = [i for i, (path, _) in enumerate(paths) if len(path) == hop]
        if not growing:
            break
        slots = budget - (len(paths) - len(growing))   # the stopped paths keep their slot
        steps: list[Step] = []
        quota: dict[int, int] = {}
        for n, i in enumerate(growing):
            path = paths[i][0]
            candidates = [c for c in dict.fromkeys(neighbors(path[-1])) if c not in path]
            rest = len(growing) - n - 1
            quota[i] = min(branching_factor, len(candidates), slots - rest)
            slots -= max(quota[i], 1)
            if quota[i]:
                steps.append((path, candidates))
        if not steps:
            break
        scored = iter(zip(steps, (yield steps)))
        grown: list[tuple[Path, float]] = []
        for i, (path, score) in enumerate(paths):
            if not quota.get(i):
                grown.append((path, score))
                continue
            (_, candidates), scores = next(scored)
            for j in ranked(scores)[:quota[i]]:
                grown.append(((*path, candidates[j]), float(scores[j])))
        paths = grown
    return [Visit(path[-1], path, len(path) - 1, score) for path, score in paths]


def _distinct(seeds: dict[str, float], neighbors: Callable[[str], Iterable[str]],
              branching_factor: int, budget: int, max_hops: int) -> Walk:
    visits = [Visit(s, (s,), 0, score) for s, score in seeds.items()]
    seen = set(seeds)
    frontier: list[Path] = [v.path for v in visits]
    for hop in range(1, max_hops + 1):
        remaining = budget - len(visits)
        if remaining <= 0 or not frontier:
            break
        share = math.ceil(remaining / (max_hops - hop + 1))
        before = frozenset(seen)
        offered = [(path, [c for c in dict.fromkeys(neighbors(path[-1])) if c not in before])
                   for path in frontier]
        offered = [(path, candidates) for path, candidates in offered if candidates]
        taken, grown, start = 0, [], 0
        while taken < share and start < len(offered):
            # score as few paths as can fill the share: each takes at most branching_factor
            end, room = start, 0
            while end < len(offered) and room < share - taken:
                room += min(branching_factor, len(offered[end][1]))
                end += 1
            steps = offered[start:end]
            start = end
            for (path, candidates), scores in zip(steps, (yield steps)):
                took = 0
                for j in ranked(scores):
                    if took == branching_factor or taken == share:
                        break
                    if candidates[j] in seen:   # an earlier path took it at this hop
                        continue
                    seen.add(candidates[j])
                    visits.append(Visit(candidates[j], (*path, candidates[j]), hop,
                                        float(scores[j])))
                    grown.append((*path, candidates[j]))
                    took += 1
                    taken += 1
        frontier = grown
    return visits


def _finish(walker: Walk, scores: list[np.ndarray] | None) -> tuple[list[Step] | None,
                                                                     list[Visit] | None]:
    """Advance ``walker`` by one step: its next requests, or its visits when it is done."""
    try:
        return (next(walker) if scores is None else walker.send(scores)), None
    except StopIteration as done:
        return None, done.value


def drive(walker: Walk, score: Scorer) -> list[Visit]:
    """The visits of one walk, each step's candidates scored by ``score(path, candidates)``,
    one call at a time."""
    steps, visits = _finish(walker, None)
    while visits is None:
        steps, visits = _finish(walker, [np.asarray(score(p, c), dtype=np.float64)
                                         for p, c in steps])
    return visits


def traverse(seeds: Sequence[str], seed_scores: Sequence[float],
             neighbors: Callable[[str], Iterable[str]], score: Scorer, branching_factor: int,
             budget: int, max_hops: int, *, mode: Mode = "paper") -> list[Visit]:
    """Algorithm 1 for one question: the visits of :func:`walk` driven by ``score``."""
    return drive(walk(seeds, seed_scores, neighbors, branching_factor, budget, max_hops, mode),
                 score)


def traverse_many(walks: Sequence[Walk], score_batch: Callable[[list[tuple[int, Step]]],
                                                                Sequence[np.ndarray]]
                  ) -> list[list[Visit]]:
    """Many walks advanced together: at every round, the pending steps of all walks go to one
    ``score_batch`` call as ``(walk index, step)`` pairs (one score array back per pair, in
    order); returns each walk's visits. The walks' visits are those :func:`traverse` gives,
    since a walk's steps never depend on another walk's scores."""
    results: list[list[Visit] | None] = [None] * len(walks)
    pending: dict[int, list[Step]] = {}
    for i, walker in enumerate(walks):
        steps, visits = _finish(walker, None)
        if visits is None:
            pending[i] = steps
        else:
            results[i] = visits
    while pending:
        batch = [(i, step) for i, steps in pending.items() for step in steps]
        scores = iter(score_batch(batch))
        advanced: dict[int, list[Step]] = {}
        for i, steps in pending.items():
            mine = [np.asarray(next(scores), dtype=np.float64) for _ in steps]
            nxt, visits = _finish(walks[i], mine)
            if visits is None:
                advanced[i] = nxt
            else:
                results[i] = visits
        pending = advanced
    return [r if r is not None else [] for r in results]
