"""Node of the embed stage."""
from __future__ import annotations

from typing import Any

import pandas as pd

from kgp_kedro.config import validate
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.models.embeddings import LazyEncoder, embed_passages


def embed(passages: pd.DataFrame, encoder: dict[str, Any]) -> pd.DataFrame:
    """``passage_embeddings_<encoder>``: every distinct passage encoded once; vectors already in
    the encoder's ``cache_dir`` are reused (the model is loaded only when one is missing)."""
    params = validate(EncoderParams, encoder, "encoder")
    return embed_passages(passages, LazyEncoder(params), params.cache_dir, params.chunk_size)
