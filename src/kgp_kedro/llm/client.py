"""The LLM interface: messages in, :class:`Completion` out (text, token counts, latency),
through a backend, the committed reply store (``results/llm``), an on-disk call cache and
deterministic sampling (temperature 0)."""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any


from kgp_kedro.llm.backends import LLM_BACKENDS, InvalidReplyError, Messages
from kgp_kedro.llm.cache import CallCache, call_key
from kgp_kedro.llm.store import ReplyStore
from kgp_kedro.plumbing.progress import Progress

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Completion:
    """One call's outcome. ``error`` is set (and ``text`` empty) when the call failed after the
    backend's retries (an HTTP error, a timeout, or a reply with no choices or null content):
    the caller counts it as a wrong answer, never drops it, and it is never cached."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    cached: bool = False
    error: str | None = None


class MissingReplyError(LookupError):
    """A call that a store-only client (``llm.store_only``) did not find in the store (the
    call cache is not read): it is never sent to the model."""


class LLMClient:
    """A backend behind the reply store and the call cache. A call answered by the store
    (``store``, read first) or the cache is never sent; a reply the backend gives is added to
    both, and one found only in the cache is copied into the store. With ``store_only`` only
    the store answers (the cache is not read): a call it lacks raises
    :class:`MissingReplyError` instead of reaching the backend.
    ``calls`` counts backend calls actually made; ``requests`` counts every :meth:`complete`."""

    def __init__(self, backend, cache: CallCache | None = None, temperature: float = 0.0,
                 max_tokens: int = 32, seed: int | None = 0,
                 store: ReplyStore | None = None, store_only: bool = False) -> None:
        if store_only and store is None:
            raise ValueError("a store-only client needs a store")
        self.backend, self.cache, self.store = backend, cache, store
        self.store_only = store_only
        self.sampling = {"temperature": float(temperature), "max_tokens": int(max_tokens),
                         "seed": seed}
        self.calls = self.requests = 0

    @property
    def name(self) -> str:
        return f"{self.backend.kind}:{self.backend.model}"

    @property
    def context_window(self) -> int:
        return int(self.backend.context_window)

    def count_tokens(self, text: str) -> int:
        return self.backend.count_tokens(text)

    def complete(self, messages: Messages, max_tokens: int | None = None) -> Completion:
        """The model's reply to ``messages`` (from the cache when this exact call was made)."""
        sampling = dict(self.sampling)
        if max_tokens is not None:
            sampling["max_tokens"] = int(max_tokens)
        self.requests += 1
        key = call_key(self.backend.kind, self.backend.model, messages, sampling)
        if (hit := self._stored(key)) is not None:
            return Completion(**{**hit, "cached": True})
        if self.store_only:
            asked = json.dumps(messages[-1]["content"])[:120] if messages else "no message"
            raise MissingReplyError(
                f"llm.store_only: the store {self.store.root} has no reply to call {key} "
                f"({self.name}, {sampling}; last message {asked})")
        self.calls += 1
        start = time.perf_counter()
        try:
            text, prompt_tokens, completion_tokens = self.backend.chat(messages, **sampling)
            if not isinstance(text, str):  # a backend must raise or give text; never cache it
                raise InvalidReplyError(f"backend reply is {type(text).__name__}, not text")
        except Exception as exc:  # noqa: BLE001 - a failed call is an outcome, counted downstream
            latency = 1000 * (time.perf_counter() - start)
            logger.warning("LLM call failed (%s): %s: %s", self.name, type(exc).__name__, exc)
            return Completion("", 0, 0, latency, error=f"{type(exc).__name__}: {exc}")
        completion = Completion(text, prompt_tokens, completion_tokens,
                                1000 * (time.perf_counter() - start))
        record = asdict(completion)   # failures are not kept: a re-run retries them
        for keeper in (self.store, self.cache):
            if keeper is not None:
                keeper.put(key, record)
        return completion

    def _stored(self, key: str) -> dict[str, Any] | None:
        """The reply kept under ``key``: the store's, else the cache's (then copied into the
        store, so the committed store holds every reply a run used). A store-only client reads
        the store alone: a reply only this machine's cache holds does not count, so a run that
        ends proves the store complete, and nothing is written to it."""
        if self.store is not None and (hit := self.store.get(key)) is not None:
            return hit
        if self.store_only:
            return None
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None and self.store is not None:
            self.store.put(key, hit)
        return hit

    def complete_many(self, batch: Sequence[Messages], max_tokens: int | None = None,
                      desc: str = "llm") -> list[Completion]:
        """:meth:`complete` over ``batch`` in order, ``backend.concurrency`` calls at a time."""
        workers = max(1, int(getattr(self.backend, "concurrency", 1)))
        with Progress(desc, len(batch), log=logger) as bar:
            def one(messages: Messages) -> Completion:
                result = self.complete(messages, max_tokens)
                bar.update()
                return result
            if workers == 1:
                return [one(m) for m in batch]
            with ThreadPoolExecutor(max_workers=workers) as pool:
                return list(pool.map(one, batch))


@lru_cache(maxsize=4)
def _backend(kind: str, options_json: str):
    return LLM_BACKENDS.get(kind)(**json.loads(options_json))


def make_llm(params: Mapping[str, Any], cache_path: str | None = None) -> LLMClient:
    """The client described by ``parameters_llm.yml``'s ``llm`` block: ``backend`` (``local``
    or ``openai``), that backend's options under its own name, ``sampling``, ``cache`` (a
    SQLite path; null disables it) and ``store`` (the committed reply store's directory, e.g.
    ``results/llm``; null: none), and ``store_only`` (true: the store alone answers, a call it
    lacks raises :class:`MissingReplyError`). Backends are loaded once per process."""
    kind = params.get("backend", "local")
    if kind not in LLM_BACKENDS.names():
        raise ValueError(f"llm.backend must be one of {LLM_BACKENDS.names()}, got {kind!r}")
    options = {k: v for k, v in (params.get(kind) or {}).items() if v is not None}
    backend = _backend(kind, json.dumps(options, sort_keys=True))
    cache_path = cache_path or params.get("cache")
    store = params.get("store")
    return LLMClient(backend, CallCache(cache_path) if cache_path else None,
                     **(params.get("sampling") or {}),
                     store=ReplyStore(store) if store else None,
                     store_only=bool(params.get("store_only", False)))
