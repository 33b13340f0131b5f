"""KGP-T5 agent with a tiny seq2seq model built here (no T5 weights ship on PyPI)."""
from __future__ import annotations

import numpy as np
import pytest


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


def test_seq2seq_agent_generates_and_ranks_candidates(tiny_t5):
    from kgp_kedro.retrieval.agents import Seq2SeqAgent

    agent = Seq2SeqAgent(tiny_t5, device="cpu", max_new_tokens=8)
    generated = agent.generate("Who composed for the Simpsons?", ["Alf Clausen is a composer."])
    assert isinstance(generated, str) and agent.calls == 1
    scores = agent.score("Who composed for the Simpsons?", ["Alf Clausen is a composer."],
                         ["basalt volcanic rock", "the cat sat on the mat"])
    assert scores.shape == (2,) and np.isfinite(scores).all() and agent.calls == 2
    again = Seq2SeqAgent(tiny_t5, device="cpu", max_new_tokens=8)
    assert again.generate("Who composed for the Simpsons?", ["Alf Clausen is a composer."]) \
        == generated  # greedy decoding is deterministic
