"""The generative agents: KGP-T5's generator agent with a tiny seq2seq model built here (no T5
weights ship on PyPI) and KGP-ChatGPT/LLaMA with the embedded model."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.retrievers.agents.base import ScoreRequest
from kgp_kedro.prompts.kgp import NEXT_EVIDENCE_INSTRUCTION
from kgp_kedro.retrievers.agents.generative import ChatAgent, GeneratorAgent
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from kgp_kedro.retrievers import Resources, SkippedMethod
from kgp_kedro.search.tfidf import text_similarity
from tests.generators import save_tiny_generator
from tests.llm.fake_openai_server import FakeOpenAIServer

TEXTS = {"alf": "Alf Clausen is a composer.", "basalt": "basalt volcanic rock",
         "cat": "the cat sat on the mat"}
COLLECTION = Collection("c", list(TEXTS), list(TEXTS.values()), list(TEXTS), list(TEXTS))


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory):
    return save_tiny_generator(tmp_path_factory.mktemp("tiny_t5"), [
        "basalt volcanic rock cat mat Alf Clausen composer Simpsons Who composed for the ?"])


def _seq2seq(path):
    return GeneratorAgent(GeneratorAgent.Params(model=path, device="cpu", max_new_tokens=8),
                          Resources(30))


def test_generator_agent_with_a_local_seq2seq_checkpoint_generates_and_ranks(tiny_t5):
    agent = _seq2seq(tiny_t5)
    generated = agent.generate("Who composed for the Simpsons?", ["Alf Clausen is a composer."])
    assert isinstance(generated, str) and agent.calls == 1
    scores = agent.score("Who composed for the Simpsons?", ["alf"], ["basalt", "cat"], COLLECTION)
    assert scores.shape == (2,) and np.isfinite(scores).all() and agent.calls == 2
    again = _seq2seq(tiny_t5)
    assert again.generate("Who composed for the Simpsons?", ["Alf Clausen is a composer."]) \
        == generated  # greedy decoding is deterministic


def test_generator_agent_with_an_unresolved_trained_model_skips_its_method():
    """``trained:t5`` reaches the agent as a model folder only through the retrieve stage."""
    with pytest.raises(SkippedMethod, match="trained:t5"):
        GeneratorAgent(GeneratorAgent.Params(model="trained:t5"), Resources(30))


def test_chat_agent_asks_the_paper_instruction_and_ranks_by_the_evidence():
    with FakeOpenAIServer(reply=lambda prompt: "basalt is a volcanic rock") as server:
        llm = LLMClient(OpenAIBackend("m", base_url=server.base_url, api_key="k"), None)
        agent = ChatAgent(ChatAgent.Params(max_tokens=16), Resources(30, llm=llm))
        scores = agent.score("Which rock?", ["alf"], ["basalt", "cat"], COLLECTION)
    np.testing.assert_allclose(scores, text_similarity("basalt is a volcanic rock",
                                                       [TEXTS["basalt"], TEXTS["cat"]]))
    assert scores[0] > scores[1] and agent.calls == 1 and agent.failures == 0
    request, = server.requests
    assert request["max_tokens"] == 16
    assert request["messages"] == [{"role": "user", "content": (
        f"Instruction: {NEXT_EVIDENCE_INSTRUCTION}\n\n"
        "Input: Which rock? Alf Clausen is a composer.\n\nOutput:")}]


def test_chat_agent_scores_a_batch_of_steps_one_generation_each():
    replies = {"Which rock?": "basalt volcanic rock", "Who composed?": "Alf Clausen composer"}
    with FakeOpenAIServer(reply=lambda prompt: next(r for q, r in replies.items()
                                                    if q in prompt)) as server:
        llm = LLMClient(OpenAIBackend("m", base_url=server.base_url, api_key="k",
                                      concurrency=2), None)
        agent = ChatAgent(ChatAgent.Params(), Resources(30, llm=llm))
        scores = agent.score_batch([
            ScoreRequest("Which rock?", ("cat",), ("alf", "basalt"), COLLECTION),
            ScoreRequest("Who composed?", ("cat",), ("alf", "basalt"), COLLECTION)])
    assert len(server.requests) == 2 and agent.calls == 2
    assert scores[0][1] > scores[0][0] and scores[1][0] > scores[1][1]


def test_chat_agent_whose_llm_calls_all_fail_ranks_by_the_question():
    """Every call fails (HTTP 500 after the client's retries): no exception; each step ranks
    its candidates by TF-IDF similarity to the question (the KGP-TF-IDF rule), counted in
    ``failures``."""
    with FakeOpenAIServer(failures=[500] * 20) as server:
        llm = LLMClient(OpenAIBackend("m", base_url=server.base_url, api_key="k",
                                      max_retries=1), None)
        agent = ChatAgent(ChatAgent.Params(), Resources(30, llm=llm))
        scores = agent.score("Which volcanic rock?", ["alf"], ["cat", "basalt"], COLLECTION)
    assert len(server.requests) == 2  # one try and one retry
    np.testing.assert_allclose(scores, text_similarity("Which volcanic rock?",
                                                       [TEXTS["cat"], TEXTS["basalt"]]))
    assert scores[1] > scores[0] and agent.failures == 1 and agent.calls == 1


@pytest.mark.slow  # the embedded model: ~20-30 s on two CPU cores
def test_chat_agent_generates_the_next_evidence_with_the_embedded_model(local_llm,
                                                                        hotpot_passages):
    questions, passages = hotpot_passages
    q = questions.iloc[0]
    collection = Collection.from_passages(
        q.collection_id, passages[passages["collection_id"] == q.collection_id])
    agent = ChatAgent(ChatAgent.Params(max_tokens=48), Resources(30, llm=local_llm))
    path = collection.supporting[:1]
    generated = agent.generate(q.question, [collection.text_of[p] for p in path])
    assert generated.strip() and agent.calls == 1
    candidates = collection.passage_ids[:20]
    scores = agent.score(q.question, path, candidates, collection)  # generates again: same text
    assert agent.calls == 2 and scores.shape == (20,)
    np.testing.assert_allclose(scores, text_similarity(generated, collection.texts[:20]))
