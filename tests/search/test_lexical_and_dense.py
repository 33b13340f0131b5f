"""BM25, fuzzy matching, exact dense search and the faiss index on real bundled records."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.config.sections import AnnParams
from kgp_kedro.retrievers.baselines import Bm25
from kgp_kedro.search.ann import VectorIndex
from kgp_kedro.search.dense import exact_search, inner_product_scores
from kgp_kedro.search.lexical import Bm25Index, fuzzy_search

BM25 = Bm25.Params()  # the paper's k1 = 1.5, b = 0.75


def _ann(**options):
    return {**AnnParams().model_dump(), **options}


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
        order, scores = Bm25Index(ps["text"].tolist(), BM25.k1, BM25.b).search(q.question, 10)
        assert len(order) == 10 and np.all(np.diff(scores) <= 0)
        hits.append(ps["is_supporting"].to_numpy()[order].any())
    # 10 of ~80 passages with ~2.5 supporting: chance alone would hit about 30% of questions
    assert np.mean(hits) >= 0.75


def test_bm25_scores_unknown_words_and_empty_collections_as_zero():
    index = Bm25Index(["basalt is a volcanic rock", "the cat sat"], BM25.k1, BM25.b)
    assert index.scores("zzyzx quux").tolist() == [0.0, 0.0]
    scores = index.scores("volcanic rock")
    assert scores[0] > 0 and scores[1] == 0
    assert Bm25Index([], BM25.k1, BM25.b).scores("rock").shape == (0,)


def test_fuzzy_search_scores_normalised_similarity(collection):
    question, ps = collection
    texts = ps["text"].tolist()
    f_order, f_scores = fuzzy_search(question, texts, 15)
    assert len(f_order) == 15 and (f_scores <= 1).all() and np.all(np.diff(f_scores) <= 0)
    # lower-cased: a passage equal to the question up to case scores 1
    order, scores = fuzzy_search("Basalt Rock", ["a cat", "basalt rock"], 1)
    assert order.tolist() == [1] and scores[0] == pytest.approx(1.0)
    assert fuzzy_search("q", [], 3)[0].size == 0


def test_exact_search_by_hand():
    passages = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8], [1.0, 0.0]])
    queries = np.array([[1.0, 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(inner_product_scores(queries, passages, "cpu"),
                               [[1.0, 0.0, 0.6, 1.0], [0.0, 2.0, 1.6, 0.0]], rtol=1e-6)
    scores, order = exact_search(queries, passages, 3, "cpu")
    # ties (passages 0 and 3 for the first query) go to the earlier passage
    assert order.tolist() == [[0, 3, 2], [1, 2, 0]]
    np.testing.assert_allclose(scores, [[1.0, 1.0, 0.6], [2.0, 1.6, 0.0]], rtol=1e-6)


def test_dense_search_finds_a_supporting_passage(collection, encoder):
    question, ps = collection
    vectors = encoder.encode(ps["text"].tolist())
    scores, order = (a[0] for a in exact_search(encoder.encode([question]), vectors, 15, "cpu"))
    assert ps["is_supporting"].to_numpy()[order].any()
    assert np.all(np.diff(scores) <= 0)


def test_faiss_index_matches_exact_search_on_real_passages(collection, encoder):
    """The pooled setting's index: flat is exact; HNSW finds the exact top 10 here."""
    question, ps = collection
    vectors = encoder.encode(ps["text"].tolist())
    queries = encoder.encode([question, *ps["text"].tolist()[:5]])
    exact_scores, exact_order = exact_search(queries, vectors, 10, "cpu")
    flat_scores, flat_order = VectorIndex(vectors, **_ann(kind="flat")).search(queries, 10)
    np.testing.assert_allclose(flat_scores, exact_scores, rtol=1e-5)
    hnsw = VectorIndex(vectors, **_ann(kind="hnsw", m=16))
    _, hnsw_order = hnsw.search(queries, 10)
    overlap = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(hnsw_order, exact_order)])
    assert overlap >= 0.9 and hnsw.build_seconds >= 0
    assert (hnsw.kind, hnsw.size) == ("hnsw", len(ps))


def test_faiss_index_clamps_top_and_refuses_bad_input():
    vectors = np.eye(3, dtype=np.float32)
    scores, positions = VectorIndex(vectors, **_ann(kind="flat")).search(vectors[0], 10)
    assert positions.shape == (1, 3) and positions[0, 0] == 0 and scores[0, 0] == 1.0
    with pytest.raises(ValueError, match="index kind"):
        VectorIndex(vectors, **_ann(kind="ivf"))
    with pytest.raises(ValueError, match="non-empty 2-d"):
        VectorIndex(np.zeros((0, 3)), **_ann())
