"""Baselines and metrics on real bundled records."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.models import SentenceEncoder
from kgp_kedro.retrieval.ann import VectorIndex
from kgp_kedro.retrieval.dense import exact_search, mdr_search
from kgp_kedro.retrieval.lexical import Bm25Index, fuzzy_search
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
        order, scores = Bm25Index(ps["text"].tolist()).search(q.question, 10)
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
    scores, order = (a[0] for a in exact_search(encoder.encode([question]), vectors, 15, "cpu"))
    assert ps["is_supporting"].to_numpy()[order].any()
    exact = lambda queries, k: exact_search(queries, vectors, k, "cpu")  # noqa: E731
    positions, pair_scores, pairs = mdr_search(question, ps["text"].tolist(), encoder.encode,
                                               exact, first_hop=5, second_hop=3, top_k=30)
    assert len(pairs) == 15 and all(p.first != p.second for p in pairs)
    assert [p.score for p in pairs] == sorted((p.score for p in pairs), reverse=True)
    assert len(set(positions.tolist())) == len(positions) <= 20
    assert set(positions[:2].tolist()) == {pairs[0].first, pairs[0].second}


def test_faiss_index_matches_exact_search_on_real_passages(collection):
    """The pooled setting's index: flat is exact; HNSW finds the exact top 10 here."""
    question, ps = collection
    encoder = SentenceEncoder(device="cpu")
    vectors = encoder.encode(ps["text"].tolist())
    queries = encoder.encode([question, *ps["text"].tolist()[:5]])
    exact_scores, exact_order = exact_search(queries, vectors, 10, "cpu")
    flat_scores, flat_order = VectorIndex(vectors, kind="flat").search(queries, 10)
    np.testing.assert_allclose(flat_scores, exact_scores, rtol=1e-5)
    hnsw = VectorIndex(vectors, kind="hnsw", m=16)
    _, hnsw_order = hnsw.search(queries, 10)
    overlap = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(hnsw_order, exact_order)])
    assert overlap >= 0.9 and hnsw.build_seconds >= 0
    # MDR through the index gives the exact search's pairs
    texts = ps["text"].tolist()
    via_index = mdr_search(question, texts, encoder.encode, VectorIndex(vectors, "flat").search,
                           5, 3, 30)
    via_exact = mdr_search(question, texts, encoder.encode,
                           lambda q, k: exact_search(q, vectors, k, "cpu"), 5, 3, 30)
    assert [(p.first, p.second) for p in via_index[2]] == [(p.first, p.second)
                                                            for p in via_exact[2]]
