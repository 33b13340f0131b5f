"""Passage embeddings: computed once per distinct passage and encoder, looked up by id."""
from __future__ import annotations

import logging
import sys
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

logger = logging.getLogger(__name__)

EMBEDDING_COLUMNS = ["passage_id", "embedding"]


def embed_passages(passages: pd.DataFrame, encoder) -> pd.DataFrame:
    """``passage_embeddings``: one row per distinct passage id (a document shared by several
    collections is encoded once)."""
    unique = passages.drop_duplicates("passage_id")
    start = time.perf_counter()
    vectors = encoder.encode(unique["text"].tolist(), show_progress=sys.stderr.isatty())
    logger.info("Encoded %d passages with %s on %s: %.0f passages/s", len(unique), encoder.name,
                encoder.device, len(unique) / max(time.perf_counter() - start, 1e-9))
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
