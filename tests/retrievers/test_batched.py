"""Batched traversal: the questions of a run advance hop by hop together (one scoring call per
step for all of them) and get exactly the visits of the one-question loop, on real bundled
collections of the three sources, for every agent that runs here (TF-IDF, random, encoder,
chat against a local OpenAI-compatible server, the generator with tiny local checkpoints) and
both modes."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.corpus import build_collections, split_passages
from kgp_kedro.graphs.build import GraphTables, build_variant
from kgp_kedro.graphs.builders.tfidf import TfidfBuilder
from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from kgp_kedro.models import load_encoder
from kgp_kedro.models.embeddings import EmbeddingLookup
from kgp_kedro.retrievers import Resources
from kgp_kedro.retrievers.run import CollectionSource, run_retriever
from tests.conftest import HOTPOT, MUSIQUE, TWOWIKI, load
from tests.generators import save_tiny_generator
from tests.llm.fake_openai_server import FakeOpenAIServer

SOURCES = {"hotpotqa": HOTPOT, "musique": MUSIQUE, "2wikimultihopqa": TWOWIKI}
SETTING = "n_kw=10"




@pytest.fixture(scope="module")
def encoder():
    """MiniLM in float32: a query's vector does not depend on the batch it is encoded in (in
    bf16 the padding moves it by ~1e-3, enough to swap near-tied candidates). One torch
    thread while this module runs: on two cores shared with other jobs, a two-thread forward
    pass of one short text waits on the busier core (~1 s instead of ~50 ms), and the
    one-question loop is ~100 such passes."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield load_encoder(EncoderParams(device="cpu", dtype="float32"))
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def bundled():
    """3 questions of each source, 2 negative documents each, and their TF-IDF KG (10
    keywords a document)."""
    loaded = [load(dataset, path, 3) for dataset, path in SOURCES.items()]
    questions = pd.concat([q for q, _ in loaded], ignore_index=True)
    documents = pd.concat([d for _, d in loaded], ignore_index=True)
    passages = split_passages(build_collections(questions, documents, 2, seed=7))
    nodes, edges = build_variant(passages, TfidfBuilder(TfidfBuilder.Params()),
                                 [(SETTING, TfidfBuilder.Params(n_kw=10))], "tfidf")
    return questions, passages, GraphTables(nodes, edges)


@pytest.fixture(scope="module")
def embeddings(bundled, encoder):
    passages = bundled[1].drop_duplicates("passage_id")
    return EmbeddingLookup(pd.DataFrame({
        "passage_id": passages["passage_id"].tolist(),
        "embedding": list(encoder.encode(passages["text"].tolist()))}), encoder.name)


def _compare(questions, passages, graphs, agent, mode, encoder=None, embeddings=None,
             llm=None):
    def run(batch_size):
        method = parse_method("kgp", {"method": "kgp", "mode": mode, "batch_size": batch_size,
                                      "agent": agent}, "retrieve.methods.kgp")
        retriever = method.retriever(method.params, Resources(30, encoder, llm))
        table = run_retriever(retriever, questions, CollectionSource(
            passages, graphs, SETTING, embeddings), "kgp", "per_question")
        return table, retriever

    loop, one = run(1)
    batched, many = run(64)
    keys = ["question_id", "rank", "passage_id", "path", "hop"]
    assert len(loop) == len(batched) > 0
    pd.testing.assert_frame_equal(loop[keys], batched[keys])
    np.testing.assert_allclose(loop["score"], batched["score"], atol=1e-5)
    assert set(loop["question_id"]) == set(questions["question_id"])
    # the traversal did leave the seeds: hop 1 everywhere in paper mode, hop 2 in distinct
    assert loop["hop"].max() == (1 if mode == "paper" else 2)
    # one latency per batch, shared by its questions
    assert batched["latency_ms"].nunique() == 1 and (batched["latency_ms"] > 0).all()
    return loop, batched, one, many


@pytest.mark.parametrize("mode", ["paper", "distinct"])
@pytest.mark.parametrize("agent", [{"kind": "tfidf"}, {"kind": "random", "seed": 0}],
                         ids=["tfidf", "random"])
def test_the_batched_run_visits_what_the_one_question_loop_visits(bundled, agent, mode):
    _compare(*bundled, agent, mode)


@pytest.mark.parametrize("mode", ["paper", "distinct"])
def test_the_chat_agent_batched_sends_a_rounds_generations_together(bundled, mode):
    # a real OpenAI-compatible server on 127.0.0.1 whose reply is the prompt's last sentence
    # of evidence: deterministic per prompt, as a cached or temperature-0 LLM is
    with FakeOpenAIServer(reply=lambda prompt: prompt.rsplit(".", 2)[-2][-200:]) as server:
        llm = LLMClient(OpenAIBackend("m", base_url=server.base_url, api_key="k",
                                      concurrency=4), None)
        loop, batched, one, many = _compare(*bundled, {"kind": "chat"}, mode, llm=llm)
    assert one.model_calls() == many.model_calls() == len(server.requests) / 2
    # one request per step: each question is charged its own requests, batched or not
    pd.testing.assert_series_equal(loop.drop_duplicates("question_id")["calls"],
                                   batched.drop_duplicates("question_id")["calls"])
    assert many.agent.failures == 0


@pytest.mark.slow  # encodes the collections' passages and ~90 queries one at a time
@pytest.mark.parametrize("mode", ["paper", "distinct"])
def test_the_encoder_agent_batched_encodes_a_round_in_one_call(bundled, encoder, embeddings,
                                                                mode):
    questions, passages, graphs = bundled
    loop, batched, one, many = _compare(questions, passages, graphs, {"kind": "encoder"}, mode,
                                        encoder, embeddings)
    # the loop encodes each step's query on its own, the batch one call per round (paper,
    # max_hops 1: every seed's step in one round; distinct: a round per share of a hop)
    rounds = many.model_calls()
    assert (rounds == 1) if mode == "paper" else (rounds < one.model_calls() / 3)
    assert one.model_calls() == loop.drop_duplicates("question_id")["calls"].sum()
    # each question is charged the rounds it took part in: one call each, not 1/len of one
    per_question = batched.drop_duplicates("question_id")["calls"]
    assert per_question.between(1, rounds).all()
    assert (per_question == 1).all() if mode == "paper" else per_question.max() > 1


@pytest.fixture(scope="module")
def tiny_generators(bundled, tmp_path_factory):
    """A tiny seq2seq (T5) and causal (LLaMA) checkpoint of the bundled records' words, run
    with one torch thread (see ``encoder``)."""
    import torch

    texts = [*bundled[0]["question"], *bundled[1]["text"]]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield {kind: save_tiny_generator(tmp_path_factory.mktemp(f"tiny_{kind}"), texts, kind)
           for kind in ("seq2seq", "causal")}
    torch.set_num_threads(threads)


@pytest.mark.parametrize("kind", ["seq2seq", "causal"])
def test_the_generator_agent_batched_generates_a_round_batch_size_at_a_time(
        bundled, tiny_generators, kind):
    """Padded batches (right for T5's encoder, left for the causal prompt) generate what each
    prompt generates alone: the same visits. The loop makes one call a step; the batch, every
    step of the round (paper mode: one round), 8 a call."""
    agent = {"kind": "generator", "model": tiny_generators[kind], "device": "cpu",
             "batch_size": 8, "max_new_tokens": 8}
    loop, batched, one, many = _compare(*bundled, agent, "paper")
    assert many.model_calls() == math.ceil(one.model_calls() / 8) > 1
    assert one.model_calls() == loop.drop_duplicates("question_id")["calls"].sum()
    per_question = batched.drop_duplicates("question_id")["calls"]
    assert per_question.between(1, many.model_calls()).all()
    assert many.agent.failures == one.agent.failures   # the same steps generate no word
