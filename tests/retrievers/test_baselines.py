"""The baselines (§8.2) through the retriever registry, the retrieved_<method> table and the
retrieval metrics, on real bundled records."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.config.sections import AnnParams
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.evaluation import retrieval_metrics, score_retrieval
from kgp_kedro.models.embeddings import EmbeddingLookup, embed_passages
from kgp_kedro.retrievers import RETRIEVERS, Resources
from kgp_kedro.retrievers.base import SkippedMethod
from kgp_kedro.retrievers.run import RETRIEVED_COLUMNS, retrieve_all
from kgp_kedro.search.dense import exact_search
from kgp_kedro.search.lexical import Bm25Index, fuzzy_search
from kgp_kedro.search.tfidf import TfidfIndex

BUDGET = 30


def test_metrics_by_hand():
    rows = retrieval_metrics(["a", "x", "b", "y"], ["a", "b"], ks=[1, 2, 3, 10])
    assert [r["recall"] for r in rows] == [0.5, 0.5, 1.0, 1.0]
    assert [r["precision"] for r in rows] == [1.0, 0.5, pytest.approx(2 / 3), 0.2]
    assert [r["sp_em"] for r in rows] == [0.0, 0.0, 1.0, 1.0]
    with pytest.raises(ValueError):
        retrieval_metrics(["a"], [], ks=[1])


@pytest.fixture(scope="module")
def first(hotpot_passages, encoder):
    """The first question and its collection, with MiniLM passage embeddings."""
    questions, passages = hotpot_passages
    q = questions.iloc[0]
    ps = passages[passages["collection_id"] == q.collection_id].reset_index(drop=True)
    collection = Collection.from_passages(q.collection_id, ps)
    collection.vectors = encoder.encode(collection.texts)
    collection.embedding_model = encoder.name
    return q, ps, collection


def _retriever(name, encoder=None, budget=BUDGET, **options):
    method = parse_method(name, {"method": name, **options}, f"retrieve.methods.{name}")
    return method.retriever(method.params, Resources(budget, encoder))


def _ids(visits):
    return [v.passage_id for v in visits]


def test_every_method_of_the_paper_is_registered():
    assert {"none", "golden", "tfidf", "bm25", "knn", "dpr", "mdr", "ircot", "kgp"} <= \
        set(RETRIEVERS.names())
    assert parse_method("dpr", {"method": "dpr"}, "m").requirements.embeddings
    assert not parse_method("bm25", {"method": "bm25"}, "m").requirements.embeddings


def test_none_and_golden(first):
    q, ps, collection = first
    assert _retriever("none").retrieve(q.question, collection) == []
    golden = _retriever("golden").retrieve(q.question, collection)
    assert _ids(golden) == ps.loc[ps["is_supporting"], "passage_id"].tolist()
    assert all(v.hop == 0 and v.score == 1.0 and v.path == (v.passage_id,) for v in golden)
    assert len(_retriever("golden", budget=1).retrieve(q.question, collection)) == 1


def test_lexical_baselines_rank_by_their_index(first):
    q, ps, collection = first
    texts = ps["text"].tolist()
    visits = _retriever("tfidf").retrieve(q.question, collection)
    order, scores = TfidfIndex(texts).search(q.question, BUDGET)
    assert _ids(visits) == ps["passage_id"].to_numpy()[order].tolist()
    np.testing.assert_allclose([v.score for v in visits], scores)
    bm25 = _retriever("bm25", k1=1.2, b=0.5).retrieve(q.question, collection)
    order, scores = Bm25Index(texts, 1.2, 0.5).search(q.question, BUDGET)
    assert _ids(bm25) == ps["passage_id"].to_numpy()[order].tolist()
    np.testing.assert_allclose([v.score for v in bm25], scores)


def test_dense_baselines(first, encoder):
    q, ps, collection = first
    dpr = _retriever("dpr", encoder).retrieve(q.question, collection)
    scores, order = (a[0] for a in exact_search(encoder.encode([q.question]),
                                                collection.vectors, BUDGET, "cpu"))
    assert _ids(dpr) == ps["passage_id"].to_numpy()[order].tolist()
    np.testing.assert_allclose([v.score for v in dpr], scores, rtol=1e-5)
    # KNN: the dense top 15, then the Levenshtein top passages not already taken (15 + 15)
    knn_retriever = _retriever("knn", encoder)
    knn = knn_retriever.retrieve(q.question, collection)
    assert len(knn) == BUDGET == len(set(_ids(knn))) and knn_retriever.calls == 1
    assert _ids(knn)[:15] == _ids(dpr)[:15]
    fuzzy_order, _ = fuzzy_search(q.question, ps["text"].tolist(), BUDGET)
    fuzzy = [p for p in ps["passage_id"].to_numpy()[fuzzy_order] if p not in _ids(dpr)[:15]]
    assert _ids(knn)[15:] == fuzzy[:15]
    with pytest.raises(ValueError, match="needs an encoder"):
        _retriever("dpr").retrieve(q.question, collection)


def test_a_dense_method_with_its_own_model_encodes_the_passages_itself(first, encoder):
    """``model:`` a local path (here the shipped MiniLM's folder: another name than the stored
    vectors'): DPR and MDR encode the collection with it, each text once, and rank as with
    the stored vectors of the same weights; ``trained:<name>`` is the train stage's to resolve."""
    from kgp_kedro.models.encoders import resolve_model_path

    q, ps, collection = first
    path = resolve_model_path("all-MiniLM-L6-v2")
    for name in ("dpr", "mdr"):
        stored = _retriever(name, encoder).retrieve(q.question, collection)
        own = _retriever(name, encoder, model=path)
        assert own.resources.encoder.name == path != collection.embedding_model
        assert _ids(own.retrieve(q.question, collection)) == _ids(stored)
    assert parse_method("dpr", {"method": "dpr", "model": "trained:dpr"}, "m"
                        ).requirements.trained == ("dpr",)
    with pytest.raises(SkippedMethod, match="handed over by the retrieve stage"):
        _retriever("dpr", encoder, model="trained:dpr")


def test_an_empty_collection_gives_nothing():
    empty = Collection("empty", [], [], [], [])
    for name in ("golden", "tfidf", "bm25"):
        assert _retriever(name).retrieve("anything?", empty) == []


def test_retrieved_tables_and_their_scores(hotpot_passages, encoder):
    questions, passages = hotpot_passages
    questions = questions.head(3)
    passages = passages[passages["collection_id"].isin(questions["collection_id"])]

    def method(name, **options):
        return parse_method(name, {"method": name, **options}, f"retrieve.methods.{name}")

    golden = retrieve_all(questions, passages, method("golden"), BUDGET)
    assert list(golden.columns) == RETRIEVED_COLUMNS
    assert (golden["scope"] == "per_question").all() and (golden["method"] == "golden").all()
    assert golden.groupby("question_id")["rank"].apply(list).map(
        lambda r: r == list(range(len(r)))).all()
    # no context: one row per question (its latency), with no passage
    none = retrieve_all(questions, passages, method("none"), BUDGET)
    assert len(none) == 3 and (none["rank"] == -1).all() and none["passage_id"].isna().all()
    # a method that cannot run here is an empty table
    skipped = retrieve_all(questions, passages,
                           method("kgp", agent={"kind": "generator", "model": "trained:t5"}), BUDGET)
    assert skipped.empty and list(skipped.columns) == RETRIEVED_COLUMNS
    # the pooled scope through a (flat, exact) faiss index gives the exact ranking
    lookup = EmbeddingLookup(embed_passages(passages, encoder), encoder.name)
    exact = retrieve_all(questions, passages, method("dpr"), BUDGET, encoder=encoder,
                         embeddings=lookup)
    pooled = retrieve_all(questions, passages, method("dpr"), BUDGET, encoder=encoder,
                          embeddings=lookup, ann=AnnParams(kind="flat").model_dump(),
                          scope="pooled", label="dpr_pooled")
    assert (pooled["scope"] == "pooled").all() and (pooled["method"] == "dpr_pooled").all()
    assert pooled["passage_id"].tolist() == exact["passage_id"].tolist()
    assert (exact["calls"] == 1).all()

    per_question, summary = score_retrieval(questions, passages, [2, 30], golden, none, skipped)
    # golden finds every supporting passage by k = 30; none finds nothing
    gold = summary[(summary["method"] == "golden") & (summary["unit"] == "passage")].set_index("k")
    assert gold.loc[30, "recall"] == 1.0 and gold.loc[30, "sp_em"] == 1.0
    assert (summary[summary["method"] == "none"]["recall"] == 0.0).all()
    assert set(summary["method"]) == {"golden", "none"} and (summary["n_questions"] == 3).all()
    assert len(per_question) == 2 * 3 * 2 * 2  # methods x questions x ks x units
    assert isinstance(per_question, pd.DataFrame)
