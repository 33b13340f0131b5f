"""The LLM-free traversal agents and the encoder agent (Eq. 1 scores of candidate nodes)."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.agents import AGENTS
from kgp_kedro.agents.encoder import EncoderAgent
from kgp_kedro.agents.heuristic import RandomAgent, TfidfAgent
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
    assert {"tfidf", "random", "encoder", "seq2seq", "chat"} <= set(AGENTS.names())
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
    return load_encoder(EncoderParams(device="cpu"))


def test_encoder_agent_scores_question_and_path_against_candidates(hotpot_passages, encoder):
    questions, passages = hotpot_passages
    q = questions.iloc[0]
    ps = passages[passages["collection_id"] == q.collection_id].head(12)
    collection = Collection.from_passages(q.collection_id, ps)
    path, candidates = collection.passage_ids[:2], collection.passage_ids[2:]
    query = encoder.encode([" ".join([q.question, *collection.texts[:2]])])
    expected = inner_product_scores(query, encoder.encode(collection.texts[2:]), "cpu")[0]

    # without the collection's embeddings: the candidates are encoded (once each)
    agent = EncoderAgent(EncoderAgent.Params(device="cpu"), Resources(30, encoder))
    scores = agent.score(q.question, path, candidates, collection)
    np.testing.assert_allclose(scores, expected, atol=1e-5)
    assert agent.calls == 2  # the query, then the candidates
    agent.score(q.question, path, candidates, collection)
    assert agent.calls == 2  # every text already encoded

    # with the collection's embeddings from the same encoder: only the query is encoded
    collection.vectors = encoder.encode(collection.texts)
    collection.embedding_model = encoder.name
    reuse = EncoderAgent(EncoderAgent.Params(device="cpu"), Resources(30, encoder))
    np.testing.assert_allclose(reuse.score(q.question, path, candidates, collection), expected,
                               atol=1e-5)
    assert reuse.calls == 1
    # the best candidate by this agent is the one nearest question ⊕ path
    assert candidates[int(np.argmax(scores))] == candidates[int(np.argmax(expected))]
