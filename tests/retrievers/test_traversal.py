"""Algorithm 1 on a hand-built graph whose visit order is known."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.config.project import RetrieveBlock
from kgp_kedro.retrievers.kgp import Kgp
from kgp_kedro.retrievers.traversal import traverse

#        s1 -- a1 -- b1
#        |      \
#        a2      b2        s2 -- c1 -- d1
GRAPH = {"s1": ["a1", "a2"], "a1": ["s1", "b1", "b2"], "a2": ["s1"], "b1": ["a1"],
         "b2": ["a1"], "s2": ["c1"], "c1": ["s2", "d1"], "d1": ["c1"]}
KGP = Kgp.Params()                                   # branching factor 3 (§8.2)
BUDGET = RetrieveBlock.model_fields["budget"].default  # 30 passages (§8.2)


class ScoreTable:
    """A scorer with fixed scores per candidate, recording what it was asked."""

    def __init__(self, scores):
        self.scores, self.calls, self.asked = scores, 0, []

    def __call__(self, path, candidates):
        self.calls += 1
        self.asked.append((tuple(path), tuple(candidates)))
        return np.array([self.scores[c] for c in candidates])


SCORES = {"a1": 0.9, "a2": 0.1, "b1": 0.2, "b2": 0.8, "c1": 0.5, "d1": 0.7, "s1": 0, "s2": 0}


def test_breadth_first_over_paths_with_the_agent_choosing():
    agent = ScoreTable(SCORES)
    visits = traverse(["s1", "s2"], [1.0, 0.5], GRAPH.__getitem__, agent,
                      branching_factor=1, budget=10, max_hops=3)
    # queue: [s1], [s2] -> a1 (0.9 > a2), c1 -> [s1 a1] -> b2, [s2 c1] -> d1 -> [.. b2]: nothing
    # new -> [.. d1]: nothing new
    assert [v.passage_id for v in visits] == ["s1", "s2", "a1", "c1", "b2", "d1"]
    assert visits[4].path == ("s1", "a1", "b2") and visits[4].hop == 2
    assert visits[2].score == pytest.approx(0.9)
    assert visits[0].score == 1.0 and visits[1].score == 0.5 and visits[0].hop == 0
    # the agent saw the path (node ids, seed first) and only unvisited candidates
    assert agent.asked[2] == (("s1", "a1"), ("b1", "b2"))


def test_branching_factor_and_budget():
    visits = traverse(["s1"], [1.0], GRAPH.__getitem__, ScoreTable(SCORES),
                      branching_factor=2, budget=4, max_hops=3)
    assert [v.passage_id for v in visits] == ["s1", "a1", "a2", "b2"]


def test_max_hops_stops_paths():
    one_hop = traverse(["s1"], [1.0], GRAPH.__getitem__, ScoreTable(SCORES),
                       branching_factor=3, budget=30, max_hops=1)
    assert {v.passage_id for v in one_hop} == {"s1", "a1", "a2"}
    seeds_only = traverse(["s1", "s1"], [1.0, 1.0], GRAPH.__getitem__, ScoreTable(SCORES),
                          KGP.branching_factor, BUDGET, max_hops=0)
    assert [v.passage_id for v in seeds_only] == ["s1"]


def test_the_budget_also_caps_the_seeds_and_bad_settings_raise():
    agent = ScoreTable(SCORES)
    visits = traverse(["s1", "s2"], [1.0, 0.5], GRAPH.__getitem__, agent, 1, 1, 3)
    assert [v.passage_id for v in visits] == ["s1"] and agent.calls == 0
    for bf, budget, hops in ((0, 1, 1), (1, 0, 1), (1, 1, -1)):
        with pytest.raises(ValueError):
            traverse(["s1"], [1.0], GRAPH.__getitem__, agent, bf, budget, hops)
