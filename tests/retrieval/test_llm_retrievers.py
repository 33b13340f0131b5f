"""The LLM-driven retrievers: the ``chat`` traversal agent (KGP-ChatGPT/LLaMA) and IRCoT, with
the embedded model for real, and IRCoT's control flow with scripted replies from a real
OpenAI-compatible server on 127.0.0.1."""
import numpy as np

from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from kgp_kedro.retrieval.agents import ChatAgent, text_similarity
from kgp_kedro.retrieval.ircot import ircot_search
from kgp_kedro.retrieval.lexical import Bm25Index
from kgp_kedro.retrieval.methods import Collection, MethodRunner
from tests.llm.fake_openai_server import FakeOpenAIServer


def _collection(hotpot_passages, i=0):
    questions, passages = hotpot_passages
    q = questions.iloc[i]
    ps = passages[passages["collection_id"] == q.collection_id]
    return q, ps


def test_chat_agent_generates_the_next_evidence_with_the_embedded_model(local_llm,
                                                                        hotpot_passages):
    q, ps = _collection(hotpot_passages)
    agent = ChatAgent(local_llm, max_tokens=48)
    path = ps.loc[ps["is_supporting"], "text"].tolist()[:1]
    generated = agent.generate(q.question, path)
    assert generated.strip() and agent.calls == 1
    candidates = ps["text"].tolist()[:20]
    scores = agent.score(q.question, path, candidates)  # generates again: the same text
    assert agent.calls == 2 and scores.shape == (20,)
    np.testing.assert_allclose(scores, text_similarity(generated, candidates))


def test_kgp_with_the_chat_agent_traverses_a_bundled_collection(local_llm, hotpot_passages):
    q, ps = _collection(hotpot_passages)
    ids, texts = ps["passage_id"].tolist(), ps["text"].tolist()
    # a chain graph over the collection: each passage links to the next one
    chain = {p: [ids[(i + 1) % len(ids)]] for i, p in enumerate(ids)}
    runner = MethodRunner({"method": "kgp", "seeds": 2, "branching_factor": 1, "max_hops": 2,
                           "agent": {"kind": "chat", "max_tokens": 24}}, budget=4,
                          llm=local_llm)
    visits = runner.retrieve(q.question, Collection(ids, texts, neighbors=chain.__getitem__))
    assert len(visits) == 4 and [v.hop for v in visits[:2]] == [0, 0]
    assert all(v.hop >= 1 and v.path[-1] == v.passage_id for v in visits[2:])
    assert runner.model_calls() == runner.agent.calls >= 2  # a generation per dequeued path


def test_ircot_retrieves_bm25_for_the_question_then_for_each_reasoning_sentence(
        local_llm, hotpot_passages):
    q, ps = _collection(hotpot_passages)
    texts = ps["text"].tolist()
    before = local_llm.requests
    order, scores, steps = ircot_search(q.question, texts, local_llm, budget=10, step_k=5,
                                        max_steps=1)
    first, _ = Bm25Index(texts).search(q.question, 5)
    assert list(order[:5]) == list(first)                 # step 0: the question itself
    assert len(steps) == 2 and steps[1].sentence.strip()  # one LLM reasoning step
    assert local_llm.requests - before == 1
    assert len(set(order)) == len(order) == 10            # new passages only, up to the budget
    assert list(order[5:]) == list(steps[1].retrieved)


def test_ircot_stops_when_the_chain_states_its_answer(hotpot_passages):
    q, ps = _collection(hotpot_passages)
    texts = ps["text"].tolist()
    replies = iter(["Mikael Akerfeldt is a guitarist.", "So the answer is: guitarists.",
                    "never asked"])
    with FakeOpenAIServer(reply=lambda prompt: next(replies)) as server:
        llm = LLMClient(OpenAIBackend("m", base_url=server.base_url, api_key="k"), None)
        order, _, steps = ircot_search(q.question, texts, llm, budget=30, step_k=5)
    assert [s.sentence for s in steps[1:]] == ["Mikael Akerfeldt is a guitarist.",
                                               "So the answer is: guitarists."]
    assert len(server.requests) == 2 and len(order) == 15
    # the second prompt carries the first thought after the question, IRCoT's format
    assert server.requests[1]["messages"][0]["content"].endswith(
        f"Q: {q.question}\nA: Mikael Akerfeldt is a guitarist.")


def test_ircot_runs_as_a_configured_method(hotpot_passages):
    q, ps = _collection(hotpot_passages)
    with FakeOpenAIServer(reply=lambda prompt: "A step of reasoning.") as server:
        llm = LLMClient(OpenAIBackend("m", base_url=server.base_url, api_key="k"), None)
        runner = MethodRunner({"method": "ircot", "step_k": 5}, budget=30, llm=llm)
        visits = runner.retrieve(q.question, Collection(ps["passage_id"].tolist(),
                                                        ps["text"].tolist()))
    assert len(visits) == min(30, len(ps)) and runner.model_calls() == len(server.requests)
    assert [v.hop for v in visits[:5]] == [0] * 5 and visits[5].hop == 1
