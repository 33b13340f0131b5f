"""Cross-encoders (sentence-transformers ``CrossEncoder``): loaded from a local path or a hub
name, and their relevance logit of (question, text) pairs. EWEK-QA reranks its quotes with one
(:mod:`kgp_kedro.ewek.rerank`), trained by :mod:`kgp_kedro.training.cross_encoder`."""
from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

logger = logging.getLogger(__name__)


@lru_cache(maxsize=2)
def load_cross_encoder(model: str, device: str = "auto", max_length: int = 256):
    """A sentence-transformers ``CrossEncoder`` from a local path (the one trained here) or a
    hub name (downloaded once, then from the Hugging Face cache)."""
    from sentence_transformers import CrossEncoder

    from kgp_kedro.models.devices import resolve_device
    from kgp_kedro.models.encoders import resolve_model_path

    path = resolve_model_path(model)
    try:
        encoder = CrossEncoder(path, device=resolve_device(device), max_length=max_length)
    except OSError as exc:
        raise OSError(f"could not load cross-encoder {model!r}: give a local path (the ewek "
                      "stage trains one into data/06_models), or allow network access "
                      "(unset HF_HUB_OFFLINE) for a hub model") from exc
    logger.info("Loaded cross-encoder %s on %s", model, encoder.device)
    return encoder


def pair_scores(cross_encoder, pairs: Sequence[tuple[str, str]],
                batch_size: int = 32) -> np.ndarray:
    """The cross-encoder's relevance logit of each ``(question, text)`` pair."""
    if not len(pairs):
        return np.zeros(0)
    scores = cross_encoder.predict(list(pairs), batch_size=batch_size, show_progress_bar=False,
                                   activation_fn=_identity())
    return np.asarray(scores, dtype=np.float64).reshape(-1)


def _identity():
    import torch

    return torch.nn.Identity()
