"""Algorithm 1 on hand-built graphs whose visits are worked out by hand, in both modes:
``paper`` (the budget counts reasoning paths, §8.2) and ``distinct`` (the budget counts
distinct passages, spread over the hops)."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.pipelines.parameter_tree import RetrieveBlock
from kgp_kedro.retrievers.kgp import Kgp
from kgp_kedro.retrievers.traversal import traverse, traverse_many, walk

#        s1 -- a1 -- b1
#        |      \
#        a2      b2        s2 -- c1 -- d1
GRAPH = {"s1": ["a1", "a2"], "a1": ["s1", "b1", "b2"], "a2": ["s1"], "b1": ["a1"],
         "b2": ["a1"], "s2": ["c1"], "c1": ["s2", "d1"], "d1": ["c1"]}
KGP = Kgp.Params()                                   # branching factor 3 (§8.2)
BUDGET = RetrieveBlock.model_fields["budget"].default  # 30 (§8.2)


class ScoreTable:
    """A scorer with fixed scores per candidate, recording what it was asked."""

    def __init__(self, scores):
        self.scores, self.calls, self.asked = scores, 0, []

    def __call__(self, path, candidates):
        self.calls += 1
        self.asked.append((tuple(path), tuple(candidates)))
        return np.array([self.scores[c] for c in candidates])


SCORES = {"a1": 0.9, "a2": 0.1, "b1": 0.2, "b2": 0.8, "c1": 0.5, "d1": 0.7, "s1": 0.3,
          "s2": 0.6}


def _paths(visits):
    return [" > ".join(v.path) for v in visits]


# --- distinct: a budget of distinct passages, ⌈remaining / hops left⌉ per hop ---------------

def test_distinct_breadth_first_over_paths_with_the_agent_choosing():
    agent = ScoreTable(SCORES)
    visits = traverse(["s1", "s2"], [1.0, 0.5], GRAPH.__getitem__, agent,
                      branching_factor=1, budget=10, max_hops=3, mode="distinct")
    # 2 seeds; hop 1 may add ⌈8/3⌉ = 3: s1 -> a1 (0.9 > a2), s2 -> c1; hop 2 ⌈6/2⌉ = 3:
    # [s1 a1] -> b2 (0.8 > b1; s1 already retrieved), [s2 c1] -> d1; hop 3: nothing new
    assert [v.passage_id for v in visits] == ["s1", "s2", "a1", "c1", "b2", "d1"]
    assert visits[4].path == ("s1", "a1", "b2") and visits[4].hop == 2
    assert visits[2].score == pytest.approx(0.9)
    assert visits[0].score == 1.0 and visits[1].score == 0.5 and visits[0].hop == 0
    # the agent saw the path (node ids, seed first) and only candidates not retrieved before
    # the hop
    assert agent.asked == [(("s1",), ("a1", "a2")), (("s2",), ("c1",)),
                           (("s1", "a1"), ("b1", "b2")), (("s2", "c1"), ("d1",))]


def test_distinct_spreads_the_budget_over_the_hops():
    # budget 4, 1 seed: hop 1 gets ⌈3/3⌉ = 1 (a1), hop 2 ⌈2/2⌉ = 1 (b2), hop 3 the last one,
    # but b2 has no new neighbour: the walk ends with 3 passages
    visits = traverse(["s1"], [1.0], GRAPH.__getitem__, ScoreTable(SCORES),
                      branching_factor=2, budget=4, max_hops=3, mode="distinct")
    assert _paths(visits) == ["s1", "s1 > a1", "s1 > a1 > b2"]
    # max_hops 2: hop 1 gets ⌈3/2⌉ = 2 (a1, a2), hop 2 the last slot (b2)
    visits = traverse(["s1"], [1.0], GRAPH.__getitem__, ScoreTable(SCORES),
                      branching_factor=2, budget=4, max_hops=2, mode="distinct")
    assert _paths(visits) == ["s1", "s1 > a1", "s1 > a2", "s1 > a1 > b2"]


def test_distinct_skips_what_an_earlier_path_took_at_the_same_hop():
    # both seeds see x first; s1 (ranked first) takes it, s2 takes its next best
    graph = {"s1": ["x", "y"], "s2": ["x", "z"], "x": [], "y": [], "z": []}
    agent = ScoreTable({"x": 0.9, "y": 0.1, "z": 0.5})
    visits = traverse(["s1", "s2"], [1.0, 0.9], graph.__getitem__, agent, branching_factor=1,
                      budget=4, max_hops=1, mode="distinct")
    assert _paths(visits) == ["s1", "s2", "s1 > x", "s2 > z"]
    assert agent.asked[1] == (("s2",), ("x", "z"))  # x was offered, it was not retrieved yet


def test_max_hops_stops_paths():
    one_hop = traverse(["s1"], [1.0], GRAPH.__getitem__, ScoreTable(SCORES),
                       branching_factor=3, budget=30, max_hops=1, mode="distinct")
    assert {v.passage_id for v in one_hop} == {"s1", "a1", "a2"}
    seeds_only = traverse(["s1", "s1"], [1.0, 1.0], GRAPH.__getitem__, ScoreTable(SCORES),
                          KGP.branching_factor, BUDGET, max_hops=0, mode="distinct")
    assert [v.passage_id for v in seeds_only] == ["s1"]
    paper = traverse(["s1", "s2"], [1.0, 0.5], GRAPH.__getitem__, ScoreTable(SCORES),
                     KGP.branching_factor, BUDGET, max_hops=0, mode="paper")
    assert _paths(paper) == ["s1", "s2"] and paper[1].score == 0.5


def test_the_budget_also_caps_the_seeds_and_bad_settings_raise():
    for mode in ("paper", "distinct"):
        agent = ScoreTable(SCORES)
        visits = traverse(["s1", "s2"], [1.0, 0.5], GRAPH.__getitem__, agent, 1, 1, 3,
                          mode=mode)
        if mode == "distinct":
            assert [v.passage_id for v in visits] == ["s1"] and agent.calls == 0
        else:  # one path, grown from the first seed
            assert _paths(visits) == ["s1 > a1 > b2"]
    for bf, budget, hops in ((0, 1, 1), (1, 0, 1), (1, 1, -1)):
        with pytest.raises(ValueError):
            traverse(["s1"], [1.0], GRAPH.__getitem__, ScoreTable(SCORES), bf, budget, hops)
    with pytest.raises(ValueError, match="traversal mode 'fifo'"):
        traverse(["s1"], [1.0], GRAPH.__getitem__, ScoreTable(SCORES), 1, 1, 1, mode="fifo")


# --- paper: a budget of reasoning paths, passages shared between paths ----------------------

def test_paper_mode_branches_each_path_and_reaches_hop_2():
    agent = ScoreTable(SCORES)
    visits = traverse(["s1", "s2"], [1.0, 0.5], GRAPH.__getitem__, agent,
                      branching_factor=2, budget=6, max_hops=2, mode="paper")
    # hop 1 (6 path slots): s1 -> a1, a2 (its top 2); s2 -> c1 (its only neighbour): 3 paths.
    # hop 2: [s1 a1] -> b2, b1 (s1 is on the path); [s1 a2] has nothing off its path and
    # stops; [s2 c1] -> d1. Tree order: seed rank, then the agent's rank at each hop.
    assert _paths(visits) == ["s1 > a1 > b2", "s1 > a1 > b1", "s1 > a2", "s2 > c1 > d1"]
    assert [v.passage_id for v in visits] == ["b2", "b1", "a2", "d1"]
    assert [v.hop for v in visits] == [2, 2, 1, 2]
    assert [v.score for v in visits] == pytest.approx([0.8, 0.2, 0.1, 0.7])
    # a path with no candidate off its path ([s1 a2]) is not scored
    assert agent.asked == [(("s1",), ("a1", "a2")), (("s2",), ("c1",)),
                           (("s1", "a1"), ("b1", "b2")), (("s2", "c1"), ("d1",))]


def test_paper_mode_lets_paths_share_passages_and_never_repeats_one_on_a_path():
    # s1 and s2 are joined: s2 is a seed and also the best second passage of s1's path (§8.2:
    # "passages in the 1st-hop retrieval are allowed to overlap with the ones in the 2nd-hop")
    graph = {**GRAPH, "s1": ["a1", "a2", "s2"], "s2": ["c1", "s1"]}
    visits = traverse(["s1", "s2"], [1.0, 0.5], graph.__getitem__, ScoreTable(SCORES),
                      branching_factor=2, budget=4, max_hops=1, mode="paper")
    # s1's candidates a1 .9, a2 .1, s2 .6 -> a1, s2; s2's: c1 .5, s1 .3 -> c1, s1
    assert _paths(visits) == ["s1 > a1", "s1 > s2", "s2 > c1", "s2 > s1"]
    assert all(len(set(v.path)) == len(v.path) for v in visits)
    distinct = traverse(["s1", "s2"], [1.0, 0.5], graph.__getitem__, ScoreTable(SCORES),
                        branching_factor=2, budget=4, max_hops=1, mode="distinct")
    assert _paths(distinct) == ["s1", "s2", "s1 > a1", "s1 > a2"]  # a seed is never revisited


def test_paper_mode_path_budget_when_paths_outnumber_the_branches():
    # budget 3 paths, branching 2: s1 may branch twice only if s2 keeps one slot -> s1 gets 2,
    # s2 gets 1; at hop 2 every path keeps one child (the budget is spent)
    visits = traverse(["s1", "s2"], [1.0, 0.5], GRAPH.__getitem__, ScoreTable(SCORES),
                      branching_factor=2, budget=3, max_hops=2, mode="paper")
    assert _paths(visits) == ["s1 > a1 > b2", "s1 > a2", "s2 > c1 > d1"]


# --- the paper's setting (10 seeds, branching 3, 30) on a lattice: hop 2 must occur ---------

def lattice(seeds=10, fan=4):
    """Seed s<i> joined to a<i><j> (j < fan), each a<i><j> joined to b<i><j><k>; the agent
    prefers the lower last digit (score 1 / (1 + digit)). Every passage has ``fan`` new
    neighbours, so no hop runs out of candidates."""
    graph, scores = {}, {}
    for i in range(seeds):
        graph[f"s{i}"] = [f"a{i}{j}" for j in range(fan)]
        for j in range(fan):
            graph[f"a{i}{j}"] = [f"s{i}", *(f"b{i}{j}{k}" for k in range(fan))]
            scores[f"a{i}{j}"] = 1 / (1 + j)
            for k in range(fan):
                graph[f"b{i}{j}{k}"] = [f"a{i}{j}"]
                scores[f"b{i}{j}{k}"] = 1 / (1 + k)
    return [f"s{i}" for i in range(seeds)], graph, scores


def _hops(visits):
    return np.bincount([v.hop for v in visits]).tolist()


def test_the_papers_setting_on_a_lattice_in_both_modes():
    seeds, graph, scores = lattice()
    assert KGP.seeds_for(BUDGET) == 10 and KGP.branching_factor == 3 and BUDGET == 30
    assert KGP.mode == "paper" and KGP.hops == 1
    run = dict(branching_factor=3, budget=BUDGET)
    seed_scores = [1.0] * 10

    # paper, max_hops 1 (§8.2): 30 paths of 2 passages, each seed with its top 3 neighbours
    paper = traverse(seeds, seed_scores, graph.__getitem__, ScoreTable(scores), **run,
                     max_hops=1, mode="paper")
    assert _paths(paper) == [f"s{i} > a{i}{j}" for i in range(10) for j in range(3)]
    # paper, max_hops 2: the budget is spent at hop 1, so each path grows by its best next
    # passage: 30 paths of 3 passages
    deeper = traverse(seeds, seed_scores, graph.__getitem__, ScoreTable(scores), **run,
                      max_hops=2, mode="paper")
    assert _paths(deeper) == [f"s{i} > a{i}{j} > b{i}{j}0" for i in range(10) for j in range(3)]
    assert _hops(deeper) == [0, 0, 30]

    # distinct, max_hops 2 (its default): 10 seeds, hop 1 ⌈20/2⌉ = 10 (s0, s1, s2 branch 3
    # ways, s3 once), hop 2 the last 10 (a00, a01, a02 branch 3 ways, a10 once)
    distinct = traverse(seeds, seed_scores, graph.__getitem__, ScoreTable(scores), **run,
                        max_hops=2, mode="distinct")
    assert _hops(distinct) == [10, 10, 10]
    assert _paths(distinct)[10:] == (
        [f"s{i} > a{i}{j}" for i in range(3) for j in range(3)] + ["s3 > a30"]
        + [f"s0 > a0{j} > b0{j}{k}" for j in range(3) for k in range(3)] + ["s1 > a10 > b100"])
    # distinct, max_hops 1: the reference code's FIFO queue (seeds 1-7 branch 3 ways)
    fifo = traverse(seeds, seed_scores, graph.__getitem__, ScoreTable(scores), **run,
                    max_hops=1, mode="distinct")
    assert _hops(fifo) == [10, 20] and {v.path[0] for v in fifo[10:]} == {
        f"s{i}" for i in range(7)}


def test_walks_advanced_together_give_the_one_question_visits():
    seeds, graph, scores = lattice()
    cases = [(seeds, graph, 3, 30, 2), (["s1", "s2"], GRAPH, 2, 6, 2), (["s2"], GRAPH, 1, 1, 0)]
    for mode in ("paper", "distinct"):
        alone = [traverse(s, [1.0] * len(s), g.__getitem__, ScoreTable({**SCORES, **scores}),
                          bf, budget, hops, mode=mode) for s, g, bf, budget, hops in cases]
        batches = []

        def score_batch(batch):
            batches.append(len(batch))
            table = ScoreTable({**SCORES, **scores})
            return [table(path, candidates) for _, (path, candidates) in batch]

        together = traverse_many([walk(s, [1.0] * len(s), g.__getitem__, bf, budget, hops, mode)
                                  for s, g, bf, budget, hops in cases], score_batch)
        assert together == alone
        # one scoring call per round for all walks: paper 2 hops; distinct 2 hops, the lattice
        # scoring 4 seeds then 4 paths (each room for 3 of the hop's 10)
        assert len(batches) == 2
