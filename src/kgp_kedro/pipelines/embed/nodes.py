"""Node of the embed stage."""
from __future__ import annotations

from typing import Any

import pandas as pd

from kgp_kedro.config import validate
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.models import load_encoder
from kgp_kedro.models.embeddings import embed_passages


def embed(passages: pd.DataFrame, encoder: dict[str, Any]) -> pd.DataFrame:
    """``passage_embeddings_<encoder>``: every distinct passage encoded once."""
    return embed_passages(passages, load_encoder(validate(EncoderParams, encoder, "encoder")))
