"""Passage embeddings: computed once per distinct passage and encoder, looked up by id."""
from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from kgp_kedro.plumbing import parallel
from kgp_kedro.models.cache import TextCache, cached_map, open_cache
from kgp_kedro.models.estimates import encoding_estimate

logger = logging.getLogger(__name__)

EMBEDDING_COLUMNS = ["passage_id", "embedding"]


class LazyEncoder:
    """The encoder of an ``embed.encoders`` entry (:class:`~kgp_kedro.config.sections.
    EncoderParams`), loaded on the first :meth:`encode` only: a run whose passages are all
    cached never imports sentence-transformers. ``name``, ``device``, ``dtype`` and
    ``normalize`` are resolved as :class:`~kgp_kedro.models.encoders.SentenceEncoder` does."""

    normalize = True   # SentenceEncoder's default, which load_encoder keeps

    def __init__(self, params) -> None:
        from kgp_kedro.models.loading import encoder_runtime

        self.params = params
        self.name = params.model
        self.device, self.dtype = encoder_runtime(params)

    def _loaded(self):
        from kgp_kedro.models.loading import load_encoder

        encoder = load_encoder(self.params)
        if (encoder.device, encoder.dtype, encoder.normalize) != (
                self.device, self.dtype, self.normalize):   # would file vectors under a wrong key
            raise RuntimeError(f"encoder {self.name} loaded as {encoder.device}/{encoder.dtype}, "
                               f"expected {self.device}/{self.dtype}")
        return encoder

    def encode(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        return self._loaded().encode(texts, show_progress=show_progress)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._loaded().encode_queries(texts)


def encoder_identity(encoder, memo: Any = None) -> dict[str, Any]:
    """What makes ``encoder``'s vectors, the key of its cache entries: its engine class's
    ``identity`` (:func:`~kgp_kedro.models.loading.encoder_class`; a sentence-transformers
    model: :meth:`~kgp_kedro.models.encoders.SentenceEncoder.identity`)."""
    from kgp_kedro.models.loading import encoder_class

    return encoder_class(encoder.name).identity(encoder, memo)


def _decode_vector(raw: Any) -> np.ndarray:
    if not isinstance(raw, bytes) or not raw or len(raw) % 4:
        raise ValueError("not a float32 vector")
    return np.frombuffer(raw, dtype=np.float32)


def embedding_cache(directory: str | None, encoder) -> TextCache | None:
    """The on-disk cache of ``encoder``'s passage vectors in ``directory`` (``None``: off)."""
    return open_cache(directory, lambda memo: encoder_identity(encoder, memo),
                      encode=lambda v: np.ascontiguousarray(v, dtype=np.float32).tobytes(),
                      decode=_decode_vector)


def _encode_chunk(texts: Sequence[str], encoder) -> np.ndarray:
    return encoder.encode(texts, show_progress=sys.stderr.isatty())


def embed_passages(passages: pd.DataFrame, encoder, cache_dir: str | None = None,
                   chunk_size: int = 2048) -> pd.DataFrame:
    """``passage_embeddings``: one row per distinct passage id (a document shared by several
    collections is encoded once).

    With ``cache_dir``, vectors are looked up on disk by (encoder identity, sha256 of the text)
    (:func:`encoder_identity`); only the missing texts are encoded, in one batch, and stored.
    ``encoder``: a :class:`~kgp_kedro.models.encoders.SentenceEncoder` or a
    :class:`LazyEncoder` (loaded only when something is missing). The missing texts are
    encoded ``chunk_size`` at a time, spread over a Dask cluster's workers when one is active
    (:func:`kgp_kedro.plumbing.parallel.map_chunks`; each worker loads the encoder once)."""
    unique = passages.drop_duplicates("passage_id")
    texts = unique["text"].tolist()
    cache = embedding_cache(cache_dir, encoder)

    def encode(missing: list[str]) -> np.ndarray:
        import torch

        logger.info("Encoding %s passages with %s on %s (%s cached or repeated): %s",
                    f"{len(missing):,}", encoder.name, encoder.device,
                    f"{len(texts) - len(missing):,}",
                    encoding_estimate(len(missing), str(encoder.device).split(":")[0],
                                      encoder.dtype, torch.get_num_threads(),
                                      torch.backends.cpu.get_cpu_capability(), encoder.name))
        return parallel.map_chunks(_encode_chunk, missing, chunk_size, encoder,
                                   desc=f"encode {encoder.name}")

    try:
        vectors, stats = cached_map(texts, encode, cache)
    finally:
        if cache is not None:
            cache.close()
    if len({v.shape for v in vectors}) > 1:
        raise ValueError(f"vectors of several dimensions for {encoder.name}: delete the "
                         f"embedding cache {cache_dir}")
    logger.info("Passage embeddings, %s on %s in %s: %s%s", encoder.name, encoder.device,
                encoder.dtype, stats.describe("passages"),
                f"; cache {cache_dir}" if cache is not None else "; no cache")
    return pd.DataFrame({"passage_id": unique["passage_id"].to_numpy(),
                         "embedding": list(vectors)}, columns=EMBEDDING_COLUMNS)


class EmbeddingLookup:
    """``passage id -> vector`` over a ``passage_embeddings`` table made by ``model``."""

    def __init__(self, table: pd.DataFrame, model: str) -> None:
        self.model = model
        self._vectors = dict(zip(table["passage_id"], table["embedding"]))

    def matrix(self, passage_ids: Sequence[str]) -> np.ndarray:
        """The float32 rows of ``passage_ids``; a missing id means the table is stale."""
        try:
            return np.stack([np.asarray(self._vectors[p], dtype=np.float32)
                             for p in passage_ids]).astype(np.float32)
        except KeyError as exc:
            raise ValueError(f"passage {exc.args[0]} has no embedding from {self.model}: "
                             "the passage_embeddings table is stale (re-run the embed stage)"
                             ) from None
        except ValueError:  # np.stack of nothing
            return np.zeros((0, 0), dtype=np.float32)
