"""The LLM-free traversal agents and the encoder agent (Eq. 1 scores of candidate nodes)."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.retrievers.agents import AGENTS
from kgp_kedro.retrievers.agents.base import ScoreRequest
from kgp_kedro.retrievers.agents.encoder import EncoderAgent
from kgp_kedro.retrievers.agents.heuristic import RandomAgent, TfidfAgent
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.models import load_encoder
from kgp_kedro.retrievers import Resources
from kgp_kedro.search.dense import inner_product_scores
from kgp_kedro.search.tfidf import text_similarity

TEXTS = {"cat": "a cat", "basalt": "basalt is volcanic rock", "x": "x", "y": "y", "z": "z"}
COLLECTION = Collection("c", list(TEXTS), list(TEXTS.values()), list(TEXTS), list(TEXTS))
RESOURCES = Resources(30)


def test_every_agent_of_table_2_is_registered():
    assert {"tfidf", "random", "encoder", "generator", "chat"} <= set(AGENTS.names())
    assert AGENTS.get("tfidf") is TfidfAgent and AGENTS.get("encoder") is EncoderAgent


def test_real_agents_rank_candidates():
    tfidf = TfidfAgent(TfidfAgent.Params(), RESOURCES).score(
        "volcanic rock", [], ["cat", "basalt"], COLLECTION)
    assert tfidf[1] > tfidf[0]
    np.testing.assert_allclose(tfidf, text_similarity("volcanic rock", [TEXTS["cat"],
                                                                        TEXTS["basalt"]]))
    a, b = (RandomAgent(RandomAgent.Params(seed=3), RESOURCES) for _ in range(2))
    assert np.array_equal(a.score("q", [], ["x", "y", "z"], COLLECTION),
                          b.score("q", [], ["x", "y", "z"], COLLECTION))
    other = RandomAgent(RandomAgent.Params(seed=4), RESOURCES)
    assert not np.array_equal(other.score("q", [], ["x", "y", "z"], COLLECTION),
                              RandomAgent(RandomAgent.Params(seed=3), RESOURCES)
                              .score("q", [], ["x", "y", "z"], COLLECTION))


@pytest.fixture(scope="module")
def encoder():
    # float32: a text's vector does not depend on what it is encoded beside (in bf16 the
    # padding of a batch moves it by ~1e-3)
    return load_encoder(EncoderParams(device="cpu", dtype="float32"))


def test_encoder_agent_scores_question_and_path_against_candidates(hotpot_passages, encoder):
    questions, passages = hotpot_passages
    q = questions.iloc[0]
    ps = passages[passages["collection_id"] == q.collection_id].head(12)
    collection = Collection.from_passages(q.collection_id, ps)
    path, candidates = collection.passage_ids[:2], collection.passage_ids[2:]
    query = encoder.encode([" ".join([q.question, *collection.texts[:2]])])
    expected = inner_product_scores(query, encoder.encode(collection.texts[2:]), "cpu")[0]

    # without the collection's embeddings: the candidates are encoded (once each), with the
    # query, in one encoder call
    agent = EncoderAgent(EncoderAgent.Params(device="cpu"), Resources(30, encoder))
    scores = agent.score(q.question, path, candidates, collection)
    np.testing.assert_allclose(scores, expected, atol=1e-5)
    assert agent.calls == 1
    agent.score(q.question, path, candidates, collection)
    assert agent.calls == 1  # every text already encoded

    # with the collection's embeddings from the same encoder: only the query is encoded
    collection.vectors = encoder.encode(collection.texts)
    collection.embedding_model = encoder.name
    reuse = EncoderAgent(EncoderAgent.Params(device="cpu"), Resources(30, encoder))
    np.testing.assert_allclose(reuse.score(q.question, path, candidates, collection), expected,
                               atol=1e-5)
    assert reuse.calls == 1
    # the best candidate by this agent is the one nearest question ⊕ path
    assert candidates[int(np.argmax(scores))] == candidates[int(np.argmax(expected))]


def test_random_scores_depend_on_the_step_not_on_the_order_of_calls():
    agent = RandomAgent(RandomAgent.Params(seed=3), RESOURCES)
    first = agent.score("q", ["cat"], ["x", "y", "z"], COLLECTION)
    agent.score("other question", [], ["x"], COLLECTION)
    assert np.array_equal(agent.score("q", ["cat"], ["x", "y", "z"], COLLECTION), first)
    # a candidate's score is its own: the same in a subset, in another order
    assert agent.score("q", ["cat"], ["z", "x"], COLLECTION).tolist() == [first[2], first[0]]
    assert ((first >= 0) & (first < 1)).all() and len(set(first)) == 3
    assert not np.array_equal(agent.score("q", ["basalt"], ["x", "y", "z"], COLLECTION), first)


def test_score_batch_gives_each_requests_scores(hotpot_passages, encoder):
    questions, passages = hotpot_passages
    requests = []
    for q in questions.head(3).itertuples():
        ps = passages[passages["collection_id"] == q.collection_id].head(13)
        collection = Collection.from_passages(q.collection_id, ps)
        collection.vectors = encoder.encode(collection.texts)
        collection.embedding_model = encoder.name
        ids = collection.passage_ids
        requests += [ScoreRequest(q.question, (ids[0],), tuple(ids[1:9]), collection),
                     ScoreRequest(q.question, (ids[3], ids[5]), tuple(ids[10:13]), collection),
                     ScoreRequest(q.question, (ids[2],), (), collection)]
    for agent_cls, params in ((TfidfAgent, TfidfAgent.Params()),
                              (RandomAgent, RandomAgent.Params(seed=1)),
                              (EncoderAgent, EncoderAgent.Params(device="cpu"))):
        batched = agent_cls(params, Resources(30, encoder))
        one = agent_cls(params, Resources(30, encoder))
        together = batched.score_batch(requests)
        alone = [one.score(r.question, r.path, r.candidates, r.collection) for r in requests]
        assert [len(s) for s in together] == [8, 3, 0] * 3
        for a, b in zip(together, alone):
            np.testing.assert_allclose(a, b, atol=1e-6)
        if agent_cls is EncoderAgent:
            # the 6 queries in one encoder call (the candidates have stored vectors)
            assert batched.calls == 1 and one.calls == len(requests)
            r = requests[1]
            query = encoder.encode([" ".join([r.question, *(r.collection.text_of[p]
                                                            for p in r.path)])])
            np.testing.assert_allclose(together[1], inner_product_scores(
                query, r.collection.vectors_of(r.candidates), "cpu")[0], atol=1e-5)
