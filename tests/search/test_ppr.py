"""Personalized PageRank against hand computations on tiny graphs."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from kgp_kedro.search.ppr import personalized_pagerank, transition_matrix


def path_graph(isolated: bool = False) -> sparse.csr_matrix:
    """a - b - c (weight 1), plus an isolated node d."""
    n = 4 if isolated else 3
    a = np.zeros((n, n))
    a[0, 1] = a[1, 0] = a[1, 2] = a[2, 1] = 1.0
    return sparse.csr_matrix(a)


def test_path_graph_matches_the_hand_computation():
    """p = d·Wᵀp + (1-d)·r with d = 0.5, r = a: p_a = p_b/4 + 1/2, p_b = (p_a + p_c)/2,
    p_c = p_b/4, so p_b = 1/3, p_a = 7/12, p_c = 1/12."""
    walk, dangling = transition_matrix(path_graph())
    p = personalized_pagerank(walk, dangling, np.array([1.0, 0, 0]), 0.5, tol=1e-14)
    np.testing.assert_allclose(p, [7 / 12, 1 / 3, 1 / 12], atol=1e-12)


def test_a_dangling_node_restarts_from_the_reset_vector():
    """r = (1/2, 0, 0, 1/2), d isolated: its mass restarts from r, so with s = (p_d + 1)/2 the
    restart weight, p_d = s/2 gives p_d = 1/3, s = 2/3; then p_b = p_b/4 + 1/6: p_b = 2/9,
    p_a = 7/18, p_c = 1/18 (sum 1)."""
    walk, dangling = transition_matrix(path_graph(isolated=True))
    assert dangling.tolist() == [False, False, False, True]
    p = personalized_pagerank(walk, dangling, np.array([2.0, 0, 0, 2.0]), 0.5, tol=1e-14)
    np.testing.assert_allclose(p, [7 / 18, 2 / 9, 1 / 18, 1 / 3], atol=1e-12)


def test_weights_set_the_walk():
    """a - b weight 3, b - c weight 1, reset b, d = 0.5: p_a = 3/4·p_b/2, p_c = 1/4·p_b/2,
    p_b = (p_a + p_c)/2 + 1/2 = p_b/4 + 1/2: p_b = 2/3, p_a = 1/4, p_c = 1/12."""
    a = sparse.csr_matrix(np.array([[0, 3, 0], [3, 0, 1], [0, 1, 0]], dtype=float))
    walk, dangling = transition_matrix(a)
    p = personalized_pagerank(walk, dangling, np.array([0, 1.0, 0]), 0.5, tol=1e-14)
    np.testing.assert_allclose(p, [1 / 4, 2 / 3, 1 / 12], atol=1e-12)


def test_columns_are_independent_and_damping_zero_is_the_reset():
    walk, dangling = transition_matrix(path_graph(isolated=True))
    resets = np.array([[1.0, 0, 0.2], [0, 0, 0.3], [0, 0, 0], [0, 0, 0.5]])
    together = personalized_pagerank(walk, dangling, resets, 0.5)
    for j in range(resets.shape[1]):
        alone = personalized_pagerank(walk, dangling, resets[:, j], 0.5)
        assert np.array_equal(alone, together[:, j])   # the same bits, not just close
    assert np.array_equal(together[:, 1], np.zeros(4))  # an empty reset: no mass
    np.testing.assert_allclose(personalized_pagerank(walk, dangling, resets[:, 2], 0.0),
                               resets[:, 2])


def test_bad_input_is_refused():
    walk, dangling = transition_matrix(path_graph())
    with pytest.raises(ValueError, match="damping"):
        personalized_pagerank(walk, dangling, np.ones(3), 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        personalized_pagerank(walk, dangling, -np.ones(3), 0.5)
    with pytest.raises(ValueError, match="square"):
        transition_matrix(sparse.csr_matrix(np.ones((2, 3))))
