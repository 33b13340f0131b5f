"""The generative agents: KGP-T5 with a tiny seq2seq model built here (no T5 weights ship on
PyPI) and KGP-ChatGPT/LLaMA with the embedded model."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.agents.base import ScoreRequest
from kgp_kedro.prompts.kgp import NEXT_EVIDENCE_INSTRUCTION
from kgp_kedro.agents.generative import ChatAgent, Seq2SeqAgent
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from kgp_kedro.retrievers import Resources, SkippedMethod
from kgp_kedro.search.tfidf import text_similarity
from tests.llm.fake_openai_server import FakeOpenAIServer

TEXTS = {"alf": "Alf Clausen is a composer.", "basalt": "basalt volcanic rock",
         "cat": "the cat sat on the mat"}
COLLECTION = Collection("c", list(TEXTS), list(TEXTS.values()), list(TEXTS), list(TEXTS))


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    path = tmp_path_factory.mktemp("tiny_t5")
    raw = Tokenizer(models.WordLevel(unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    raw.train_from_iterator(
        ["What evidence do we need to answer the question given the current evidence ?",
         "question evidence basalt volcanic rock cat mat Alf Clausen composer Simpsons"],
        trainers.WordLevelTrainer(special_tokens=["<pad>", "</s>", "<unk>"]))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="<pad>",
                                        eos_token="</s>", unk_token="<unk>")
    tokenizer.save_pretrained(path)
    config = T5Config(vocab_size=tokenizer.vocab_size, d_model=16, d_ff=32, d_kv=8,
                      num_layers=1, num_decoder_layers=1, num_heads=2, pad_token_id=0,
                      eos_token_id=1, decoder_start_token_id=0)
    import torch

    torch.manual_seed(0)
    T5ForConditionalGeneration(config).save_pretrained(path)
    return str(path)


def _seq2seq(path):
    return Seq2SeqAgent(Seq2SeqAgent.Params(model_path=path, device="cpu", max_new_tokens=8),
                        Resources(30))


def test_seq2seq_agent_generates_and_ranks_candidates(tiny_t5):
    agent = _seq2seq(tiny_t5)
    generated = agent.generate("Who composed for the Simpsons?", ["Alf Clausen is a composer."])
    assert isinstance(generated, str) and agent.calls == 1
    scores = agent.score("Who composed for the Simpsons?", ["alf"], ["basalt", "cat"], COLLECTION)
    assert scores.shape == (2,) and np.isfinite(scores).all() and agent.calls == 2
    again = _seq2seq(tiny_t5)
    assert again.generate("Who composed for the Simpsons?", ["Alf Clausen is a composer."]) \
        == generated  # greedy decoding is deterministic


def test_seq2seq_agent_without_a_checkpoint_skips_its_method():
    with pytest.raises(SkippedMethod, match="model_path"):
        Seq2SeqAgent(Seq2SeqAgent.Params(), Resources(30))


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
