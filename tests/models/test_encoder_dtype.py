"""Encoder precision: bf16 weights give nearly the fp32 embeddings, always as float32 rows."""
from __future__ import annotations

import logging

import numpy as np
import pytest

from kgp_kedro.models import encoders
from kgp_kedro.models.encoders import SentenceEncoder, resolve_dtype

# Measured (AVX512-BF16 CPU): bf16 vs fp32 cosine mean 0.99995, min 0.9999; top-10 cosine
# neighbours kept within a collection 0.997 on these 120 passages, 0.994 on bench_encoder.py's
# 2,030 (worst collection 0.990). The bounds leave margin for other CPUs and GPUs.
MIN_MEAN_COSINE = 0.9995
MIN_COSINE = 0.999
MIN_TOP10_OVERLAP = 0.95


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture(scope="module")
def embeddings(hotpot_passages):
    """fp32 and bf16 embeddings of 120 real passages, each passage's collection, and what the
    encoders logged when they loaded."""
    _, passages = hotpot_passages
    passages = passages.drop_duplicates("text").head(120)
    texts = passages["text"].tolist()
    logger, records = logging.getLogger(encoders.__name__), _Records()
    level = logger.level
    logger.addHandler(records)
    logger.setLevel(logging.INFO)
    try:
        models = {dtype: SentenceEncoder(device="cpu", dtype=dtype)
                  for dtype in ("float32", "bfloat16")}
    finally:
        logger.removeHandler(records)
        logger.setLevel(level)
    vectors = {dtype: model.encode(texts) for dtype, model in models.items()}
    return passages["collection_id"].to_numpy(), vectors, models, records.messages


def _top10(vectors: np.ndarray) -> list[set[int]]:
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    return [set(row) for row in np.argsort(-sims, axis=1)[:, :10]]


def test_bf16_and_fp32_embeddings_agree_on_real_passages(embeddings):
    collections, vectors, _, _ = embeddings
    fp32, bf16 = vectors["float32"], vectors["bfloat16"]
    for v in (fp32, bf16):
        assert v.dtype == np.float32 and v.shape == (len(collections), 384)
        assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    cosine = (fp32 * bf16).sum(axis=1)
    assert cosine.mean() > MIN_MEAN_COSINE and cosine.min() > MIN_COSINE
    # the knn_st KG's view: each passage's 10 nearest passages of its own collection
    overlaps = []
    for cid in np.unique(collections):
        rows = np.flatnonzero(collections == cid)
        if len(rows) > 10:
            overlaps += [len(a & b) / 10 for a, b in zip(_top10(fp32[rows]), _top10(bf16[rows]))]
    assert len(overlaps) > 80 and np.mean(overlaps) > MIN_TOP10_OVERLAP


def test_auto_dtype_follows_the_hardware(monkeypatch):
    assert resolve_dtype("float32", "cpu") == resolve_dtype("fp32", "cuda") == "float32"
    assert resolve_dtype("bfloat16", "cpu") == resolve_dtype("bf16", "cpu") == "bfloat16"
    assert resolve_dtype("auto", "mps") == "float32"
    monkeypatch.setattr(encoders, "cpu_supports_bf16", lambda: True)
    assert resolve_dtype("auto", "cpu") == "bfloat16"
    monkeypatch.setattr(encoders, "cpu_supports_bf16", lambda: False)
    assert resolve_dtype("auto", "cpu") == "float32"
    with pytest.raises(ValueError, match="encoder dtype 'float16'"):
        resolve_dtype("float16", "cpu")


def test_the_chosen_dtype_and_device_are_logged(embeddings):
    _, _, models, messages = embeddings
    for dtype, model in models.items():
        assert model.dtype == dtype and model.device == "cpu"
        assert any(f"on cpu in {dtype} (dtype {dtype}" in m for m in messages), messages
        assert model.encode(["A sentence."]).dtype == np.float32
        assert model.encode([]).shape == (0, 384)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_methods_own_model_runs_in_the_dtype_of_the_runs_encoder(dtype):
    """A trained model (a retriever's ``model`` option, the encoder agent's) loads in the dtype
    of the ``retrieve.embeddings`` encoder, not in its own ``auto``: one setting, every
    encoder."""
    from kgp_kedro.retrievers.agents.encoder import EncoderAgent
    from kgp_kedro.config.sections import EncoderParams
    from kgp_kedro.models import load_encoder
    from kgp_kedro.retrievers import Resources
    from kgp_kedro.retrievers.baselines import with_model

    base = load_encoder(EncoderParams(device="cpu", dtype=dtype))
    own = with_model(Resources(30, base), "all-MiniLM-L6-v2").encoder
    assert own is not base and own.dtype == dtype
    agent = EncoderAgent(EncoderAgent.Params(model="all-MiniLM-L6-v2"), Resources(30, base))
    assert agent.encoder is not base and agent.encoder.dtype == dtype
    forced = EncoderAgent(EncoderAgent.Params(model="all-MiniLM-L6-v2", dtype="float32"),
                          Resources(30, load_encoder(EncoderParams(device="cpu",
                                                                   dtype="bfloat16"))))
    assert forced.encoder.dtype == "float32"
