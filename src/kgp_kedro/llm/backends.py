"""LLM backends: ``chat(messages, temperature, max_tokens, seed) -> (text, prompt tokens,
completion tokens)`` plus ``count_tokens`` and ``context_window`` for prompt budgeting.

A reply without an answer (no ``choices``, or ``content: null``) raises
:class:`InvalidReplyError`: the openai backend retries it like a transient server error, and
if it persists :class:`~kgp_kedro.llm.client.LLMClient` records the call as failed and never
caches it (a later run asks again)."""
from __future__ import annotations

import logging
import math
import os
import random
import time
from itertools import takewhile
from typing import Any

from kgp_kedro.llm.packaged import resolve_gguf
from kgp_kedro.plumbing.cpus import usable_cpus
from kgp_kedro.plumbing.registry import Registry

logger = logging.getLogger(__name__)

Messages = list[dict[str, str]]

# ``llm.backend`` -> backend class; a backend registers with ``@LLM_BACKENDS.register(name)``
LLM_BACKENDS: Registry = Registry("LLM backend", "kgp_kedro.llm")


class InvalidReplyError(RuntimeError):
    """The server answered, but with no usable reply (no choices, or null content)."""


def reply_text(choices: Any, backend: str) -> str:
    """The text of the first choice of a chat completion; :class:`InvalidReplyError` when
    there is none (``choices`` empty or missing, ``message`` or ``content`` null or not text).
    ``choices`` may hold objects (the openai client) or dicts (llama-cpp-python)."""
    if not choices:
        raise InvalidReplyError(f"{backend} reply has no choices")
    first = choices[0]
    message = first.get("message") if isinstance(first, dict) else getattr(first, "message", None)
    content = (message.get("content") if isinstance(message, dict)
               else getattr(message, "content", None))
    finish = (first.get("finish_reason") if isinstance(first, dict)
              else getattr(first, "finish_reason", None))
    if content is None:
        raise InvalidReplyError(f"{backend} reply has content null (finish_reason "
                                f"{finish!r})")
    if not isinstance(content, str):
        raise InvalidReplyError(f"{backend} reply content is {type(content).__name__}, not text")
    return content


@LLM_BACKENDS.register("openai")
class OpenAIBackend:
    """Chat completions against any OpenAI-compatible ``base_url`` (OpenAI, vLLM, a llama.cpp
    server, Ollama, ...). Retries (timeouts, 429, 5xx; exponential backoff with jitter,
    honouring ``Retry-After``) are the ``openai`` client's own, bounded by ``max_retries``;
    a reply with no choices or null content is retried the same number of times, after
    ``invalid_reply_backoff`` seconds doubling each try (with jitter), then raised."""

    kind = "openai"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", timeout: float = 60.0,
                 max_retries: int = 4, concurrency: int = 4, context_window: int = 16385,
                 chars_per_token: float = 3.5, invalid_reply_backoff: float = 0.5) -> None:
        from openai import OpenAI

        key = api_key or os.environ.get(api_key_env)
        if not key:
            if base_url is None:
                raise ValueError(f"the openai backend needs an API key: set {api_key_env} or "
                                 "llm.api_key in conf/local/credentials.yml")
            key = "none"  # local OpenAI-compatible servers accept any key
        self.model, self.concurrency, self.context_window = model, int(concurrency), context_window
        self.chars_per_token = chars_per_token
        self.max_retries, self.invalid_reply_backoff = int(max_retries), float(invalid_reply_backoff)
        self.client = OpenAI(base_url=base_url, api_key=key, timeout=timeout,
                             max_retries=max_retries)

    def chat(self, messages: Messages, temperature: float, max_tokens: int,
             seed: int | None) -> tuple[str, int, int]:
        extra: dict[str, Any] = {} if seed is None else {"seed": seed}
        for attempt in range(self.max_retries + 1):
            response = self.client.chat.completions.create(
                model=self.model, messages=messages, temperature=temperature,
                max_tokens=max_tokens, **extra)
            try:
                text = reply_text(getattr(response, "choices", None), self.kind)
            except InvalidReplyError as exc:
                if attempt == self.max_retries:
                    raise
                delay = self.invalid_reply_backoff * 2 ** attempt * (0.75 + random.random() / 2)
                logger.info("%s; retrying in %.1f s (%d of %d)", exc, delay, attempt + 1,
                            self.max_retries)
                time.sleep(delay)
                continue
            usage = response.usage
            return (text, (usage.prompt_tokens or 0) if usage else 0,
                    (usage.completion_tokens or 0) if usage else 0)
        raise AssertionError("unreachable")  # pragma: no cover

    def count_tokens(self, text: str) -> int:
        """An estimate (the server's tokenizer is not at hand): characters / chars_per_token."""
        return math.ceil(len(text) / self.chars_per_token)


def llama_threads(n_threads: int | None) -> tuple[int, int]:
    """llama.cpp's threads (generating, evaluating prompts): ``n_threads`` for both; unset,
    half the CPUs this process may run on generate and all of them evaluate prompts.
    llama-cpp-python's own defaults count every core of the machine, which oversubscribes a
    process confined to fewer (its threads busy-wait for each other). A reply does not depend
    on the count (tests/llm/test_local_backend.py)."""
    if n_threads is not None:
        return n_threads, n_threads
    cpus = usable_cpus()
    return max(1, cpus // 2), cpus


@LLM_BACKENDS.register("local")
class LocalBackend:
    """A GGUF chat model run in-process with llama-cpp-python: a packaged model by name
    (:data:`~kgp_kedro.llm.packaged.PACKAGED_MODELS`) or any GGUF file at ``model_path``.
    ``device: auto`` offloads every layer to the GPU when the build supports it."""

    kind = "local"
    concurrency = 1  # a llama.cpp context is not thread-safe

    def __init__(self, model: str = "qwen2.5-coder-0.5b-instruct-q4_k_m",
                 model_path: str | None = None, cache_dir: str | None = None, n_ctx: int = 4096,
                 n_threads: int | None = None, device: str = "auto", seed: int = 0) -> None:
        try:
            import llama_cpp
        except ImportError as exc:
            raise ImportError(
                "the local LLM backend needs llama-cpp-python; install it with safe CPU flags: "
                "make install-llm (or see the README's 'Reader LLM' section)") from exc
        path = resolve_gguf(model, model_path, cache_dir)
        gpu = device in ("auto", "cuda") and llama_cpp.llama_supports_gpu_offload()
        if device == "cuda" and not gpu:
            raise RuntimeError("device 'cuda' asked for, but this llama-cpp-python build has no "
                               "GPU offload")
        self.model = model_path and path.name or model
        self.context_window = n_ctx
        generate, evaluate = llama_threads(n_threads)
        self.llm = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=generate,
                                   n_threads_batch=evaluate, n_gpu_layers=-1 if gpu else 0,
                                   seed=seed, verbose=False)
        self._templates = self._chat_templates()
        logger.info("Loaded local LLM %s (%s, n_ctx=%d, %s)", self.model, path, n_ctx,
                    "GPU" if gpu else "CPU")

    def _chat_templates(self) -> tuple[Any, Any] | None:
        """The model's own chat template as llama-cpp-python renders it (with and without the
        assistant's opening), or None when the prompt is formatted otherwise."""
        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template or self.llm.chat_format != "chat_template.default":
            return None
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        special = [self.llm.detokenize([token], special=True).decode("utf-8", "replace")
                   if token != -1 else "" for token in (self.llm.token_eos(), self.llm.token_bos())]
        return tuple(Jinja2ChatFormatter(template, *special, add_generation_prompt=opening)
                     for opening in (True, False))

    def _system_turn(self, messages: Messages) -> list[int]:
        """The tokens of the leading system messages' turn when the prompt's tokens begin with
        them (and go on), else []."""
        head = list(takewhile(lambda message: message["role"] == "system", messages))
        if self._templates is None or not head or len(head) == len(messages):
            return []
        prompt, prefix = (self.llm.tokenize(render(messages=chunk).prompt.encode("utf-8"),
                                            add_bos=False, special=True)
                          for render, chunk in zip(self._templates, (messages, head)))
        return prefix if len(prompt) > len(prefix) and prompt[:len(prefix)] == prefix else []

    def _keep_system_turn(self, messages: Messages) -> None:
        """Leave exactly the system turn's tokens in the KV cache, evaluated on their own. A
        prompt is then always evaluated as two batches, [system turn][the rest], whether its
        system turn was already cached or not: the same logits either way, and a system
        message shared by many prompts (the demonstrations) is evaluated once. A prompt with
        no system turn is evaluated from scratch, as one batch."""
        prefix = self._system_turn(messages)
        cached = self.llm.n_tokens >= len(prefix) and (
            self.llm.input_ids[:len(prefix)].tolist() == prefix)
        if prefix and cached:
            self.llm.n_tokens = len(prefix)  # generate() drops the KV cells after it
            return
        self.llm.reset()
        if prefix:
            self.llm.eval(prefix)

    def chat(self, messages: Messages, temperature: float, max_tokens: int,
             seed: int | None) -> tuple[str, int, int]:
        # never reuse more of the previous prompt than its system turn: a longer shared prefix
        # would move the batch split, and with it the logits' last bits and sometimes a greedy
        # token
        self._keep_system_turn(messages)
        response = self.llm.create_chat_completion(
            messages=messages, temperature=temperature, max_tokens=max_tokens, seed=seed)
        usage = response.get("usage") or {}
        return (reply_text(response.get("choices"), self.kind),
                usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0)

    def count_tokens(self, text: str) -> int:
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

