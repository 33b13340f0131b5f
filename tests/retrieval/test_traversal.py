"""Algorithm 1 on a hand-built graph whose visit order is known."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.retrieval.agents import RandomAgent, TfidfAgent
from kgp_kedro.retrieval.traversal import traverse

#        s1 -- a1 -- b1
#        |      \
#        a2      b2        s2 -- c1 -- d1
GRAPH = {"s1": ["a1", "a2"], "a1": ["s1", "b1", "b2"], "a2": ["s1"], "b1": ["a1"],
         "b2": ["a1"], "s2": ["c1"], "c1": ["s2", "d1"], "d1": ["c1"]}
TEXTS = {n: n for n in GRAPH}


class ScoreTable:
    """An agent with fixed scores per candidate, recording what it was asked."""

    name = "table"

    def __init__(self, scores):
        self.scores, self.calls, self.asked = scores, 0, []

    def score(self, question, path, candidates):
        self.calls += 1
        self.asked.append((tuple(path), tuple(candidates)))
        return np.array([self.scores[c] for c in candidates])


SCORES = {"a1": 0.9, "a2": 0.1, "b1": 0.2, "b2": 0.8, "c1": 0.5, "d1": 0.7, "s1": 0, "s2": 0}


def test_breadth_first_over_paths_with_the_agent_choosing():
    agent = ScoreTable(SCORES)
    visits = traverse("q", ["s1", "s2"], [1.0, 0.5], GRAPH.__getitem__, TEXTS, agent,
                      branching_factor=1, budget=10, max_hops=3)
    # queue: [s1], [s2] -> a1 (0.9 > a2), c1 -> [s1 a1] -> b2, [s2 c1] -> d1 -> [.. b2]: nothing
    # new -> [.. d1]: nothing new
    assert [v.passage_id for v in visits] == ["s1", "s2", "a1", "c1", "b2", "d1"]
    assert visits[4].path == ("s1", "a1", "b2") and visits[4].hop == 2
    assert visits[2].score == pytest.approx(0.9)
    # the agent saw the path's texts and only unvisited candidates
    assert agent.asked[2] == (("s1", "a1"), ("b1", "b2"))


def test_branching_factor_and_budget():
    visits = traverse("q", ["s1"], [1.0], GRAPH.__getitem__, TEXTS, ScoreTable(SCORES),
                      branching_factor=2, budget=4, max_hops=3)
    assert [v.passage_id for v in visits] == ["s1", "a1", "a2", "b2"]


def test_max_hops_stops_paths():
    one_hop = traverse("q", ["s1"], [1.0], GRAPH.__getitem__, TEXTS, ScoreTable(SCORES),
                       branching_factor=3, budget=30, max_hops=1)
    assert {v.passage_id for v in one_hop} == {"s1", "a1", "a2"}
    seeds_only = traverse("q", ["s1", "s1"], [1.0, 1.0], GRAPH.__getitem__, TEXTS,
                          ScoreTable(SCORES), max_hops=0)
    assert [v.passage_id for v in seeds_only] == ["s1"]


def test_real_agents_rank_candidates():
    tfidf = TfidfAgent().score("volcanic rock", [], ["a cat", "basalt is volcanic rock"])
    assert tfidf[1] > tfidf[0]
    a, b = RandomAgent(3), RandomAgent(3)
    assert np.array_equal(a.score("q", [], ["x", "y", "z"]), b.score("q", [], ["x", "y", "z"]))
