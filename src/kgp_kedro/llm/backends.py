"""LLM backends: ``chat(messages, temperature, max_tokens, seed) -> (text, prompt tokens,
completion tokens)`` plus ``count_tokens`` and ``context_window`` for prompt budgeting."""
from __future__ import annotations

import logging
import math
import os
from typing import Any

from kgp_kedro.llm.packaged import resolve_gguf

logger = logging.getLogger(__name__)

Messages = list[dict[str, str]]


class OpenAIBackend:
    """Chat completions against any OpenAI-compatible ``base_url`` (OpenAI, vLLM, a llama.cpp
    server, Ollama, ...). Retries (timeouts, 429, 5xx; exponential backoff with jitter,
    honouring ``Retry-After``) are the ``openai`` client's own, bounded by ``max_retries``."""

    kind = "openai"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", timeout: float = 60.0,
                 max_retries: int = 4, concurrency: int = 4, context_window: int = 16385,
                 chars_per_token: float = 3.5) -> None:
        from openai import OpenAI

        key = api_key or os.environ.get(api_key_env)
        if not key:
            if base_url is None:
                raise ValueError(f"the openai backend needs an API key: set {api_key_env} or "
                                 "llm.api_key in conf/local/credentials.yml")
            key = "none"  # local OpenAI-compatible servers accept any key
        self.model, self.concurrency, self.context_window = model, int(concurrency), context_window
        self.chars_per_token = chars_per_token
        self.client = OpenAI(base_url=base_url, api_key=key, timeout=timeout,
                             max_retries=max_retries)

    def chat(self, messages: Messages, temperature: float, max_tokens: int,
             seed: int | None) -> tuple[str, int, int]:
        extra: dict[str, Any] = {} if seed is None else {"seed": seed}
        response = self.client.chat.completions.create(
            model=self.model, messages=messages, temperature=temperature,
            max_tokens=max_tokens, **extra)
        usage = response.usage
        return (response.choices[0].message.content or "",
                usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0)

    def count_tokens(self, text: str) -> int:
        """An estimate (the server's tokenizer is not at hand): characters / chars_per_token."""
        return math.ceil(len(text) / self.chars_per_token)


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
                "make install (or see the README's 'Local LLM' section)") from exc
        path = resolve_gguf(model, model_path, cache_dir)
        gpu = device in ("auto", "cuda") and llama_cpp.llama_supports_gpu_offload()
        if device == "cuda" and not gpu:
            raise RuntimeError("device 'cuda' asked for, but this llama-cpp-python build has no "
                               "GPU offload")
        self.model = model_path and path.name or model
        self.context_window = n_ctx
        self.llm = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads,
                                   n_gpu_layers=-1 if gpu else 0, seed=seed, verbose=False)
        logger.info("Loaded local LLM %s (%s, n_ctx=%d, %s)", self.model, path, n_ctx,
                    "GPU" if gpu else "CPU")

    def chat(self, messages: Messages, temperature: float, max_tokens: int,
             seed: int | None) -> tuple[str, int, int]:
        # evaluate every prompt from scratch: reusing the previous prompt's KV cache changes
        # the batch split, and with it the logits' last bits and sometimes a greedy token
        self.llm.reset()
        response = self.llm.create_chat_completion(
            messages=messages, temperature=temperature, max_tokens=max_tokens, seed=seed)
        usage = response.get("usage") or {}
        return (response["choices"][0]["message"]["content"] or "",
                usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0))

    def count_tokens(self, text: str) -> int:
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))


BACKENDS = {"openai": OpenAIBackend, "local": LocalBackend}
