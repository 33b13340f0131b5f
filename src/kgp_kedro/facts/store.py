"""Extraction with a per-document cache (:func:`~kgp_kedro.models.cache.cached_map`): a
document's triples are computed once per extractor identity and reused by every run."""
from __future__ import annotations

import hashlib
import inspect
import logging
from collections.abc import Sequence
from typing import Any

from kgp_kedro.facts.base import FactExtractor, HyperTriple, decode_triples, encode_triples
from kgp_kedro.models.cache import cached_map, open_cache

logger = logging.getLogger(__name__)

_SEP = "\x1f"   # joins a title and a text into one cache key text


def code_digest(*objects: Any) -> str:
    """sha256 of the source of the functions that make the triples: editing them retires the
    cached triples."""
    parts = [inspect.getsource(inspect.unwrap(o)) for o in objects]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def extract_documents(extractor: FactExtractor, documents: Sequence[tuple[str, str]],
                      cache_dir: str | None) -> list[list[HyperTriple]]:
    """The triples of each ``(title, text)``, from ``cache_dir`` where the extractor already
    read that document (``None``: no cache)."""
    keys = [f"{title}{_SEP}{text}" for title, text in documents]

    def compute(missing: list[str]) -> list[list[HyperTriple]]:
        return extractor.extract_many([tuple(k.split(_SEP, 1)) for k in missing])

    cache = open_cache(cache_dir, lambda memo: extractor.identity(), encode=encode_triples,
                       decode=decode_triples)
    try:
        triples, stats = cached_map(keys, compute, cache)
    finally:
        if cache is not None:
            cache.close()
    logger.info("Hyper triples, %s extractor: %s", extractor.name, stats.describe("documents"))
    return triples
