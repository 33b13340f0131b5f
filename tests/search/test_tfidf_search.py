"""TF-IDF seeding on a real question, and the one ranking rule of every search."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kgp_kedro.search import TfidfIndex, text_similarity, tfidf_search, top_k
from kgp_kedro.search.ranking import rank_key, ranked
from tests.conftest import HOTPOT


def test_tfidf_search_ranks_the_matching_passage_first():
    passages = ["The cat sat on the mat.", "Dogs chase cats.", "Basalt is a volcanic rock."]
    order, scores = tfidf_search("which rock is volcanic", passages, 2)
    assert order[0] == 2 and scores[0] > scores[1] >= 0
    assert len(order) == 2


def test_an_index_is_fitted_once_and_searched_many_times():
    passages = ["The cat sat on the mat.", "Dogs chase cats.", "Basalt is a volcanic rock."]
    index = TfidfIndex(passages)
    for query in ("which rock is volcanic", "the cat"):
        order, scores = index.search(query, 3)
        expected_order, expected_scores = tfidf_search(query, passages, 3)
        assert order.tolist() == expected_order.tolist()
        np.testing.assert_allclose(scores, expected_scores)
    # rows are L2-normalised: a passage is its own best match with cosine 1
    assert index.scores(passages[2])[2] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="top_k must be >= 1"):
        index.search("rock", 0)


def test_collections_without_words_score_zero():
    assert TfidfIndex([]).scores("rock").shape == (0,)
    assert TfidfIndex(["...", "!!"]).scores("rock").tolist() == [0.0, 0.0]
    assert text_similarity("...", ["!!", "?"]).tolist() == [0.0, 0.0]


def test_text_similarity_ranks_candidates_against_generated_evidence():
    scores = text_similarity("basalt is volcanic",
                             ["a cat", "basalt is volcanic rock", "volcanic ash"])
    assert scores.shape == (3,) and scores[1] > scores[2] > scores[0] == 0.0


def test_top_k_ties_go_to_the_earlier_position():
    order, scores = top_k(np.array([0.5, 0.9, 0.5, 0.9, 0.1]), 4)
    assert order.tolist() == [1, 3, 0, 2] and scores.tolist() == [0.9, 0.9, 0.5, 0.5]
    assert top_k(np.array([0.2, 0.1]), 5)[0].tolist() == [0, 1]


def test_scores_that_differ_only_past_the_ranking_digits_tie_to_the_earlier_position():
    # 6 significant digits: 0.7123451 and 0.7123452 are both 0.712345, a tie (earlier first);
    # 0.712346 really differs and ranks first; PPR-sized masses keep 6 digits of their own
    scores = np.array([0.7123451, 0.7123452, 0.712346, 0.7123449])
    assert rank_key(scores).tolist() == [0.712345, 0.712345, 0.712346, 0.712345]
    assert ranked(scores).tolist() == [2, 0, 1, 3]
    assert ranked(scores + 1e-9 * np.array([0, 1, 0, 1])).tolist() == [2, 0, 1, 3]
    masses = np.array([3.2e-6, 3.3e-6, 3.20000001e-6])
    assert ranked(masses).tolist() == [1, 0, 2]
    assert top_k(masses, 2)[1].tolist() == [3.3e-6, 3.2e-6]   # the raw scores come back
    assert ranked(np.array([[0.1, 0.3], [0.30000001, 0.3]]), axis=1).tolist() == [[1, 0], [0, 1]]
    assert rank_key(np.array([0.0, -np.inf, -2.5e-9])).tolist() == [0.0, -np.inf, -2.5e-9]


def test_seeds_of_real_questions_mostly_hit_a_supporting_sentence():
    hits = []
    for record in json.loads(HOTPOT.read_text())[:40]:
        passages, labels = [], []
        facts = {(t, i) for t, i in record["supporting_facts"]}
        for title, sentences in record["context"]:
            for i, s in enumerate(sentences):
                passages.append(s.strip())
                labels.append((title, i) in facts)
        order, _ = tfidf_search(record["question"], passages, 5)
        hits.append(bool(np.asarray(labels)[order].any()))
    # a random choice of 5 of ~40 sentences with ~2.4 supporting would hit about 27% of the time
    assert np.mean(hits) > 0.6
