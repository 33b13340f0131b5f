"""The LLM-driven retrievers: KGP with the ``chat`` traversal agent (KGP-ChatGPT/LLaMA) and
IRCoT, with the embedded model for real, and IRCoT's control flow with scripted replies from a
real OpenAI-compatible server on 127.0.0.1."""
import numpy as np
import pytest

from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs import Edges, Graph, Nodes
from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from kgp_kedro.retrievers import Resources
from kgp_kedro.retrievers.ircot import Ircot, ircot_search
from kgp_kedro.search.lexical import Bm25Index
from tests.llm.fake_openai_server import FakeOpenAIServer

IRCOT = Ircot.Params()  # BM25 k1 1.5, b 0.75; 48-token reasoning sentences


def _collection(hotpot_passages, i=0):
    questions, passages = hotpot_passages
    q = questions.iloc[i]
    ps = passages[passages["collection_id"] == q.collection_id]
    return q, ps


def _bm25(texts):
    return Bm25Index(texts, IRCOT.k1, IRCOT.b)


def _retriever(name, spec, budget, llm):
    method = parse_method(name, spec, f"retrieve.methods.{name}")
    assert method.requirements.llm
    return method.retriever(method.params, Resources(budget, llm=llm))


@pytest.mark.slow  # the embedded model: ~20-30 s on two CPU cores
def test_kgp_with_the_chat_agent_traverses_a_bundled_collection(local_llm, hotpot_passages):
    q, ps = _collection(hotpot_passages)
    collection = Collection.from_passages(q.collection_id, ps)
    n = len(collection)
    # a chain graph over the collection: each passage links to the next one
    collection.graph = Graph(Nodes.of_passages(collection.passage_ids, collection.texts),
                             Edges.uniform(np.arange(n), (np.arange(n) + 1) % n, np.ones(n),
                                           [""] * n, "next", directed=True))
    runner = _retriever("kgp_chat", {"method": "kgp", "mode": "distinct", "seeds": 2,
                                     "branching_factor": 1, "max_hops": 2,
                                     "agent": {"kind": "chat", "max_tokens": 24}},
                        4, local_llm)
    visits = runner.retrieve(q.question, collection)
    assert len(visits) == 4 and [v.hop for v in visits[:2]] == [0, 0]
    assert all(v.hop >= 1 and v.path[-1] == v.passage_id for v in visits[2:])
    # each step follows the chain
    position = collection.position_of
    assert all(position[v.path[-1]] == (position[v.path[-2]] + 1) % n for v in visits[2:])
    assert runner.model_calls() == runner.agent.calls >= 2  # a generation per dequeued path


@pytest.mark.slow  # the embedded model: ~20-30 s on two CPU cores
def test_ircot_retrieves_bm25_for_the_question_then_for_each_reasoning_sentence(
        local_llm, hotpot_passages):
    q, ps = _collection(hotpot_passages)
    texts = ps["text"].tolist()
    before = local_llm.requests
    order, scores, steps = ircot_search(q.question, texts, local_llm, _bm25(texts), budget=10,
                                        step_k=5, max_steps=1, max_tokens=IRCOT.max_tokens)
    first, _ = _bm25(texts).search(q.question, 5)
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
        order, _, steps = ircot_search(q.question, texts, llm, _bm25(texts), budget=30,
                                       step_k=5, max_steps=IRCOT.max_steps,
                                       max_tokens=IRCOT.max_tokens)
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
        runner = _retriever("ircot", {"method": "ircot", "step_k": 5}, 30, llm)
        visits = runner.retrieve(q.question, Collection.from_passages(q.collection_id, ps))
    assert len(visits) == min(30, len(ps)) and runner.model_calls() == len(server.requests)
    assert [v.hop for v in visits[:5]] == [0] * 5 and visits[5].hop == 1
