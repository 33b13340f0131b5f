"""MDR's two-hop beam search (§8.2) with the real encoder, exact and through a faiss index."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.config.sections import AnnParams
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.retrievers import Resources
from kgp_kedro.retrievers.mdr import Mdr, mdr_search
from kgp_kedro.search.ann import VectorIndex
from kgp_kedro.search.dense import exact_search


@pytest.fixture(scope="module")
def collection(hotpot_passages, encoder):
    questions, passages = hotpot_passages
    q = questions.iloc[0]
    ps = passages[passages["collection_id"] == q["collection_id"]].reset_index(drop=True)
    return q["question"], ps, encoder.encode(ps["text"].tolist())


def test_mdr_search(collection, encoder):
    question, ps, vectors = collection
    exact = lambda queries, k: exact_search(queries, vectors, k, "cpu")  # noqa: E731
    positions, pair_scores, pairs = mdr_search(question, ps["text"].tolist(), encoder.encode,
                                               exact, first_hop=5, second_hop=3, top_k=30)
    assert len(pairs) == 15 and all(p.first != p.second for p in pairs)
    assert [p.score for p in pairs] == sorted((p.score for p in pairs), reverse=True)
    assert len(set(positions.tolist())) == len(positions) <= 20
    assert set(positions[:2].tolist()) == {pairs[0].first, pairs[0].second}
    # each passage carries the score of the best pair that brought it
    assert pair_scores[0] == pair_scores[1] == pytest.approx(pairs[0].score)
    assert mdr_search(question, [], encoder.encode, exact, 5, 3, 30)[0].size == 0


def test_mdr_through_a_faiss_index_gives_the_exact_pairs(collection, encoder):
    question, ps, vectors = collection
    texts = ps["text"].tolist()
    index = VectorIndex(vectors, **AnnParams(kind="flat").model_dump())
    via_index = mdr_search(question, texts, encoder.encode, index.search, 5, 3, 30)
    via_exact = mdr_search(question, texts, encoder.encode,
                           lambda q, k: exact_search(q, vectors, k, "cpu"), 5, 3, 30)
    assert [(p.first, p.second) for p in via_index[2]] == [(p.first, p.second)
                                                            for p in via_exact[2]]


def test_the_mdr_retriever_records_each_passage_path(collection, encoder):
    question, ps, vectors = collection
    c = Collection.from_passages("c", ps)
    c.vectors, c.embedding_model = vectors, encoder.name   # the stored vectors are this encoder's
    params = Mdr.Params()  # 15 x 3 pairs (§8.2)
    retriever = Mdr(params, Resources(30, encoder))
    visits = retriever.retrieve(question, c)
    positions, scores, pairs = mdr_search(
        question, c.texts, encoder.encode, lambda q, k: exact_search(q, vectors, k, "cpu"),
        params.first_hop, params.second_hop, 30)
    assert [v.passage_id for v in visits] == [c.passage_ids[p] for p in positions]
    np.testing.assert_allclose([v.score for v in visits], scores, rtol=1e-5)
    # the path is that of the best pair holding the passage: itself as the pair's first hop,
    # else the pair's first hop then itself
    for v in visits:
        p = c.position_of[v.passage_id]
        best = next(pair for pair in pairs if p in (pair.first, pair.second))
        expected = (p,) if p == best.first else (best.first, p)
        assert v.path == tuple(c.passage_ids[i] for i in expected)
        assert v.hop == len(v.path) - 1 and v.score == pytest.approx(best.score)
    assert retriever.calls == 2  # the question, then the 15 question ⊕ passage queries
