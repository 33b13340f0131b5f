"""Baselines and metrics on real bundled records."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.models import SentenceEncoder
from kgp_kedro.retrieval.dense import dense_search, mdr_search
from kgp_kedro.retrieval.lexical import bm25_search, fuzzy_search
from kgp_kedro.retrieval.metrics import retrieval_metrics


def test_metrics_by_hand():
    rows = retrieval_metrics(["a", "x", "b", "y"], ["a", "b"], ks=[1, 2, 3, 10])
    assert [r["recall"] for r in rows] == [0.5, 0.5, 1.0, 1.0]
    assert [r["precision"] for r in rows] == [1.0, 0.5, pytest.approx(2 / 3), 0.2]
    assert [r["sp_em"] for r in rows] == [0.0, 0.0, 1.0, 1.0]
    with pytest.raises(ValueError):
        retrieval_metrics(["a"], [], ks=[1])


@pytest.fixture(scope="module")
def collection(hotpot_passages):
    questions, passages = hotpot_passages
    q = questions.iloc[0]
    ps = passages[passages["collection_id"] == q["collection_id"]].reset_index(drop=True)
    return q["question"], ps


def test_bm25_top10_holds_a_supporting_passage_for_most_questions(hotpot_passages):
    questions, passages = hotpot_passages
    hits = []
    for q in questions.itertuples():
        ps = passages[passages["collection_id"] == q.collection_id]
        order, scores = bm25_search(q.question, ps["text"].tolist(), 10)
        assert len(order) == 10 and np.all(np.diff(scores) <= 0)
        hits.append(ps["is_supporting"].to_numpy()[order].any())
    # 10 of ~80 passages with ~2.5 supporting: chance alone would hit about 30% of questions
    assert np.mean(hits) >= 0.75


def test_fuzzy_search_scores_normalised_similarity(collection):
    question, ps = collection
    texts = ps["text"].tolist()
    f_order, f_scores = fuzzy_search(question, texts, 15)
    assert len(f_order) == 15 and (f_scores <= 1).all() and np.all(np.diff(f_scores) <= 0)


def test_dense_and_mdr_search(collection):
    question, ps = collection
    encoder = SentenceEncoder(device="cpu")
    vectors = encoder.encode(ps["text"].tolist())
    order, scores = dense_search(encoder.encode([question])[0], vectors, 15, device="cpu")
    assert ps["is_supporting"].to_numpy()[order].any()
    positions, pair_scores, pairs = mdr_search(question, ps["text"].tolist(), vectors,
                                               encoder.encode, first_hop=5, second_hop=3,
                                               top_k=30, device="cpu")
    assert len(pairs) == 15 and all(p.first != p.second for p in pairs)
    assert [p.score for p in pairs] == sorted((p.score for p in pairs), reverse=True)
    assert len(set(positions.tolist())) == len(positions) <= 20
    assert set(positions[:2].tolist()) == {pairs[0].first, pairs[0].second}
