"""Tiny generators saved as local checkpoints: a T5 (seq2seq) or a LLaMA (causal, SmolLM2's
architecture), one layer, width 32, a word-level tokenizer of the given texts. The generator
agent and its fine-tuning load them as they load any local checkpoint. No T5 weights install
from the package registry, and the packaged SmolLM2-135M takes minutes for a few steps on two
CPUs; a real (randomly initialised) model of this size trains in seconds."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kgp_kedro.prompts.kgp import NEXT_EVIDENCE_INSTRUCTION


def save_tiny_generator(path: Path, texts: Iterable[str], kind: str = "seq2seq",
                        seed: int = 0) -> str:
    """The checkpoint folder ``path`` (``kind`` seq2seq or causal), its vocabulary the words
    of ``texts`` and of the agent's prompts."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import (LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, T5Config,
                              T5ForConditionalGeneration)

    raw = Tokenizer(models.WordLevel(unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    raw.train_from_iterator(
        [NEXT_EVIDENCE_INSTRUCTION, "question : evidence : Instruction : Input : Output :",
         *texts], trainers.WordLevelTrainer(special_tokens=["<pad>", "</s>", "<unk>"]))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="<pad>",
                                        eos_token="</s>", unk_token="<unk>")
    tokenizer.save_pretrained(path)
    torch.manual_seed(seed)
    if kind == "seq2seq":
        model = T5ForConditionalGeneration(T5Config(
            vocab_size=tokenizer.vocab_size, d_model=32, d_ff=64, d_kv=16, num_layers=1,
            num_decoder_layers=1, num_heads=2, pad_token_id=0, eos_token_id=1,
            decoder_start_token_id=0))
    else:
        model = LlamaForCausalLM(LlamaConfig(
            vocab_size=tokenizer.vocab_size, hidden_size=32, intermediate_size=64,
            num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
            pad_token_id=0, eos_token_id=1, bos_token_id=1))
    model.save_pretrained(path)
    return str(path)
