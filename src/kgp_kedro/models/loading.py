"""The one place sentence encoders are loaded, each once per process and configuration
(generators: :func:`kgp_kedro.models.generators.load_generator`; LLMs:
:func:`kgp_kedro.llm.make_llm`)."""
from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=8)
def _encoder(model: str, device: str, batch_size: int, dtype: str):
    from kgp_kedro.models.encoders import SentenceEncoder

    return SentenceEncoder(model=model, device=device, batch_size=batch_size, dtype=dtype)


def load_encoder(params):
    """The :class:`~kgp_kedro.models.encoders.SentenceEncoder` of an ``embed.encoders`` entry
    (:class:`kgp_kedro.config.sections.EncoderParams`)."""
    return _encoder(params.model, params.device, params.batch_size, params.dtype)


def load_models(encoder: Mapping[str, Any] | None, llm: Mapping[str, Any] | None):
    """The encoder and LLM client of a method's requirements, from their raw parameter blocks
    (an ``embed.encoders`` entry, ``llm``; None where not given)."""
    from kgp_kedro.config import validate
    from kgp_kedro.config.sections import EncoderParams
    from kgp_kedro.llm import make_llm

    return (load_encoder(validate(EncoderParams, encoder, "encoder")) if encoder else None,
            make_llm(llm) if llm else None)
