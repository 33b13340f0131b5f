"""The entity walk (personalized PageRank over the entity–passage graph), the PPR agent, KGP's
dense seeds, KGP w/o LLM and the model calls charged per question, on real bundled HotpotQA
collections."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kgp_kedro.config.base import ParameterError
from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.corpus import build_collections, split_passages
from kgp_kedro.graphs.build import GraphTables, build_variant
from kgp_kedro.graphs.builders.tfidf import TfidfBuilder
from kgp_kedro.graphs.linking import normalise_entity
from kgp_kedro.retrievers import Resources
from kgp_kedro.retrievers.run import CollectionSource, run_retriever
from kgp_kedro.search.tfidf import TfidfIndex
from tests.conftest import HOTPOT, load

SETTING = "n_kw=10"


@pytest.fixture(scope="module")
def hotpot4(tmp_path_factory):
    """4 HotpotQA questions, 2 negative documents each, their TF-IDF KG, and a linker cache
    of this module's own."""
    questions, documents = load("hotpotqa", HOTPOT, 4)
    passages = split_passages(build_collections(questions, documents, 2, seed=7))
    nodes, edges = build_variant(passages, TfidfBuilder(TfidfBuilder.Params()),
                                 [(SETTING, TfidfBuilder.Params(n_kw=10))], "tfidf")
    cache = str(tmp_path_factory.mktemp("entities"))
    return questions, passages, GraphTables(nodes, edges), cache


def method(name: str, raw: dict, cache: str | None = None):
    if cache is not None:
        raw = {**raw, "linker": {"cache_dir": cache}} if raw["method"] == "entity_walk" else {
            **raw, "agent": {**raw["agent"], "linker": {"cache_dir": cache}}}
    return parse_method(name, raw, f"retrieve.methods.{name}")


def run(spec, questions, passages, graphs=None, encoder=None, embeddings=None):
    retriever = spec.retriever(spec.params, Resources(30, encoder))
    table = run_retriever(retriever, questions, CollectionSource(
        passages, graphs, SETTING, embeddings), spec.name)
    return table, retriever


def collection(passages, graphs, questions, i: int):
    """The collection of question ``i``."""
    return CollectionSource(passages, graphs, SETTING).get(questions.collection_id[i])


def test_the_walk_starts_at_the_questions_entities_and_reaches_the_bridge(hotpot4):
    """Without seed passages (passage_weight 0) all the reset mass is on the question's
    entities: the passages joined to them come first, and the walk reaches the bridge
    document that only they mention."""
    questions, passages, graphs, cache = hotpot4
    spec = method("ew", {"method": "entity_walk", "seeds_from": "tfidf", "links": 0,
                         "passage_weight": 0.0}, cache)
    retriever = spec.retriever(spec.params, Resources(30))
    titles = dict(zip(passages["passage_id"], passages["title"]))

    # "Mikael Åkerfeldt and Lee Ranaldo were this kind of instrumentalist ...": both named
    c = collection(passages, graphs, questions, 0)
    graph = retriever.scorer.graph(c)
    found = {graph.entities[e] for e in graph.question_entities(questions.question[0])}
    assert {normalise_entity("Mikael Åkerfeldt"), normalise_entity("Lee Ranaldo")} <= found
    top = retriever.retrieve(questions.question[0], c)
    entity_nodes = [graph.n_passages + graph.entity_index[e] for e in found]
    for v in top[:4]:   # each of the first passages is joined to a question entity
        assert graph.transition[entity_nodes, c.position_of[v.passage_id]].nnz
    assert {"Mikael Åkerfeldt", "Lee Ranaldo"} <= {titles[v.passage_id] for v in top[:10]}
    assert all(a.score >= b.score for a, b in zip(top, top[1:]))

    # "... for which Samuel Thurston served as its first delegate?": Oregon Territory, the
    # answer's document, is not named; the walk gets there through Samuel Thurston's passages
    c = collection(passages, graphs, questions, 1)
    top = retriever.retrieve(questions.question[1], c)
    assert titles[top[0].passage_id] == "Samuel Thurston"
    assert "Oregon Territory" in {titles[v.passage_id] for v in top[:10]}
    # masses are a distribution: the passages' share of it is at most 1
    mass = retriever.scorer.masses([questions.question[1]], [c])[0]
    assert 0 < mass.sum() <= 1 + 1e-9 and (mass >= 0).all()


def test_without_walking_the_ranking_is_the_seed_ranking(hotpot4):
    """damping 0: no step is taken, every passage keeps its reset weight, so the passages come
    in the order of their TF-IDF seed scores (the question's entities hold the rest)."""
    questions, passages, graphs, cache = hotpot4
    spec = method("ew", {"method": "entity_walk", "seeds_from": "tfidf", "links": 0,
                         "damping": 0.0}, cache)
    retriever = spec.retriever(spec.params, Resources(30))
    for i, question in enumerate(questions.question):
        c = collection(passages, graphs, questions, i)
        scores = TfidfIndex(c.texts).scores(question)
        expected = [c.passage_ids[j] for j in np.argsort(-scores, kind="stable")[:30]]
        assert [v.passage_id for v in retriever.retrieve(question, c)] == expected


@pytest.mark.parametrize("agent", [False, True], ids=["entity_walk", "kgp_ppr"])
def test_batched_and_one_at_a_time_give_the_same_visits(hotpot4, agent):
    questions, passages, graphs, cache = hotpot4
    options = {"seeds_from": "tfidf", "links": 0}
    raws = ({"method": "kgp", "batch_size": b, "agent": {"kind": "ppr", **options}}
            for b in (1, 64)) if agent else (
        {"method": "entity_walk", "batch_size": b, **options} for b in (1, 64))
    (loop, _), (batched, many) = [run(method("m", raw, cache), questions, passages, graphs)
                                  for raw in raws]
    keys = ["question_id", "rank", "passage_id", "path", "hop"]
    assert len(loop) == len(batched) > 0
    pd.testing.assert_frame_equal(loop[keys], batched[keys])
    np.testing.assert_array_equal(loop["score"], batched["score"])
    assert (batched["calls"] == 0).all()   # TF-IDF seeds: no model call
    if agent:                              # KGP did walk: a second passage on every path
        assert batched["hop"].max() == 1


def test_kgp_without_llm_follows_the_reference_schedule(hotpot4):
    """Round 1: the collection's TF-IDF top 10; round 2: the top 5 of the union of their KG
    neighbours not yet retrieved, TF-IDF fitted on those candidates alone; every passage
    once; the schedule and the budget bound the rounds."""
    questions, passages, graphs, _ = hotpot4
    spec = method("kgp_no_llm", {"method": "kgp_no_llm"})
    retriever = spec.retriever(spec.params, Resources(30))
    for i, question in enumerate(questions.question):
        c = collection(passages, graphs, questions, i)
        visits = retriever.retrieve(question, c)
        ids = [v.passage_id for v in visits]
        assert len(ids) == len(set(ids)) <= 30
        first = [c.passage_ids[j] for j in
                 np.argsort(-TfidfIndex(c.texts).scores(question), kind="stable")[:10]]
        assert ids[:10] == first and {v.hop for v in visits[:10]} == {0}
        candidates = list(dict.fromkeys(n for p in first for n in c.graph.neighbors(
            p, kind="passage") if n not in first))
        scores = TfidfIndex([c.text_of[n] for n in candidates]).scores(question)
        second = [candidates[j] for j in np.argsort(-scores, kind="stable")[:5]]
        assert ids[10:15] == second and {v.hop for v in visits[10:15]} == {1}
        for v in visits[10:15]:  # its path: the first round-1 passage it neighbours
            assert v.path[0] in first and v.passage_id in c.graph.neighbors(v.path[0])
    short = method("k", {"method": "kgp_no_llm", "schedule": [3, 2]})
    c = collection(passages, graphs, questions, 0)
    visits = short.retriever(short.params, Resources(30)).retrieve(questions.question[0], c)
    assert [v.hop for v in visits] == [0, 0, 0, 1, 1]


def test_kgp_dense_seeds_are_dprs_nearest_and_calls_count_per_question(hotpot4, encoder):
    """seeds_from dense: KGP's seeds are DPR's top 10. The batched run charges each question
    the calls made on its behalf: the one encoder call that embedded all the questions (dense
    seeds) and the one that scored the hop (encoder agent), 2 each, not 2/4."""
    from kgp_kedro.models.embeddings import EmbeddingLookup

    questions, passages, graphs, _ = hotpot4
    unique = passages.drop_duplicates("passage_id")
    embeddings = EmbeddingLookup(pd.DataFrame({
        "passage_id": unique["passage_id"].tolist(),
        "embedding": list(encoder.encode(unique["text"].tolist()))}), encoder.name)
    kgp = method("kgp", {"method": "kgp", "seeds_from": "dense", "agent": {"kind": "encoder"}})
    assert kgp.requirements.embeddings and kgp.requirements.graph
    table, retriever = run(kgp, questions, passages, graphs, encoder, embeddings)
    dpr, _ = run(method("dpr", {"method": "dpr"}), questions, passages, None, encoder,
                 embeddings)
    for qid, rows in table.groupby("question_id"):
        seeds = list(dict.fromkeys(p.split(" > ")[0] for p in rows.sort_values("rank")["path"]))
        nearest = dpr[dpr["question_id"] == qid].sort_values("rank")["passage_id"].tolist()
        assert seeds == nearest[:10]
    per_question = table.drop_duplicates("question_id")["calls"]
    assert (per_question == 2).all() and retriever.model_calls() == 2
    assert (dpr.drop_duplicates("question_id")["calls"] == 1).all()


@pytest.mark.parametrize("raw, key", [
    ({"method": "entity_walk", "damping": 1.0}, "retrieve.methods.m.damping"),
    ({"method": "entity_walk", "seeds_from": "bm25"}, "retrieve.methods.m.seeds_from"),
    ({"method": "entity_walk", "passage_weight": -1.0}, "retrieve.methods.m.passage_weight"),
    ({"method": "entity_walk", "links": 2.5}, "retrieve.methods.m.links"),
    ({"method": "kgp", "seeds_from": "dpr"}, "retrieve.methods.m.seeds_from"),
    ({"method": "kgp", "agent": {"kind": "ppr", "damping": -0.1}},
     "retrieve.methods.m.agent.damping"),
    ({"method": "kgp_no_llm", "schedule": []}, "retrieve.methods.m.schedule"),
    ({"method": "kgp_no_llm", "schedule": [10, 0]}, "retrieve.methods.m.schedule[1]"),
])
def test_bad_options_name_their_key(raw, key):
    with pytest.raises(ParameterError) as error:
        parse_method("m", raw, "retrieve.methods.m")
    assert key in str(error.value)


def test_requirements_follow_the_options():
    walk = method("w", {"method": "entity_walk"})
    assert walk.requirements.embeddings and not walk.requirements.graph
    routed = method("w", {"method": "entity_walk", "routing": "rules"}).requirements
    assert routed.graph and not routed.llm   # the KG's structural layer, no LLM
    assert method("w", {"method": "entity_walk", "routing": "llm"}).requirements.llm
    lexical = method("w", {"method": "entity_walk", "seeds_from": "tfidf", "links": 0})
    assert not lexical.requirements.embeddings
    assert method("k", {"method": "kgp", "agent": {"kind": "ppr"}}).requirements.embeddings
    assert not method("k", {"method": "kgp", "agent": {"kind": "tfidf"}}).requirements.embeddings
    assert method("n", {"method": "kgp_no_llm"}).requirements.graph
