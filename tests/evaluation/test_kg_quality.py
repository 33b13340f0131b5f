"""SF-EM, precision, recall, density: the paper's definitions worked by hand."""
from __future__ import annotations

import pytest

from kgp_kedro.evaluation import graph_stats, neighbourhood_scores
from kgp_kedro.graphs import Adjacency

#   a - b - c      d -> e (directed, KNN-style)      f isolated
NODES = ["a", "b", "c", "d", "e", "f"]
ADJ = Adjacency(NODES, src=["a", "b", "d"], dst=["b", "c", "e"], directed=[False, False, True])


def test_sf_em_precision_recall_by_hand():
    # seeds {a}: C1 = {a, b}; S = {b, c}: one of two supporting passages covered
    s = neighbourhood_scores(ADJ, ["a"], ["b", "c"])
    assert (s.n_candidates, s.n_hit, s.sf_em) == (2, 1, 0.0)
    assert s.precision == pytest.approx(1 / 2) and s.recall == pytest.approx(1 / 2)
    # seeds {b}: C1 = {a, b, c} covers S: SF-EM 1, precision 2/3
    s = neighbourhood_scores(ADJ, ["b"], ["b", "c"])
    assert s.sf_em == 1.0 and s.precision == pytest.approx(2 / 3) and s.recall == 1.0


def test_directed_edges_are_followed_forward_only():
    assert neighbourhood_scores(ADJ, ["d"], ["e"]).sf_em == 1.0   # d -> e
    assert neighbourhood_scores(ADJ, ["e"], ["d"]).sf_em == 0.0   # e does not reach d
    assert ADJ.neighbors("e") == set()


def test_seeds_are_counted_once_and_unlabelled_questions_raise():
    s = neighbourhood_scores(ADJ, ["f", "f"], ["f"])
    assert (s.n_seeds, s.n_candidates, s.sf_em, s.precision) == (1, 1, 1.0, 1.0)
    with pytest.raises(ValueError, match="no supporting passages"):
        neighbourhood_scores(ADJ, ["a"], [])


def test_density_and_average_neighbours_by_hand():
    stats = graph_stats(ADJ)
    # 3 joined pairs out of 6*5/2 = 15; neighbours a1 b2 c1 d1 e0 f0 -> 5/6
    assert stats["n_edges"] == 3
    assert stats["density"] == pytest.approx(3 / 15)
    assert stats["avg_neighbors"] == pytest.approx(5 / 6)


def test_a_mutual_knn_pair_is_one_edge():
    adj = Adjacency(["x", "y"], ["x", "y"], ["y", "x"], [True, True])
    assert adj.n_edges() == 1 and adj.density() == 1.0 and adj.avg_neighbors() == 1.0
