"""KNN KG (paper §3) on vectors whose neighbours are known, and with the real encoder."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from kgp_kedro.graphs import build_knn_graph
from kgp_kedro.models import SentenceEncoder, resolve_device

# four unit vectors at angles 0, 10, 90 and 100 degrees
ANGLES = np.deg2rad([0, 10, 90, 100])
VECTORS = np.stack([np.cos(ANGLES), np.sin(ANGLES)], axis=1)


def test_each_passage_points_to_its_k_most_similar_others():
    edges = build_knn_graph(VECTORS, k=1, device="cpu")
    assert edges.directed
    assert list(zip(edges.src.tolist(), edges.dst.tolist())) == [(0, 1), (1, 0), (2, 3), (3, 2)]
    assert np.allclose(edges.weight, np.cos(np.deg2rad(10)))
    two = build_knn_graph(VECTORS, k=2, device="cpu")
    # 1 is at 80 degrees from 2 and 90 from 3; 0 is at 90 from 2 and 100 from 3
    assert dict(zip(two.src[1::2].tolist(), two.dst[1::2].tolist())) == {0: 2, 1: 2, 2: 1, 3: 1}


def test_k_larger_than_the_collection_is_clamped():
    edges = build_knn_graph(VECTORS, k=10, device="cpu")
    assert len(edges) == 4 * 3
    assert build_knn_graph(VECTORS[:1], k=3, device="cpu").src.size == 0


def test_cosine_ignores_the_norm_but_dot_does_not():
    angles = np.deg2rad([0, 10, 30])
    x = np.stack([np.cos(angles), np.sin(angles)], axis=1) * np.array([[1.0], [1.0], [5.0]])
    assert build_knn_graph(x, k=1, metric="cosine").dst[0] == 1   # 10 degrees away
    assert build_knn_graph(x, k=1, metric="dot").dst[0] == 2      # 5 cos 30 > cos 10


def test_auto_device_resolves_to_what_is_present():
    expected = "cuda" if torch.cuda.is_available() else None
    got = resolve_device("auto")
    assert got == expected or (expected is None and got in ("cpu", "mps"))
    assert resolve_device("cpu") == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="no CUDA GPU"):
            resolve_device("cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_gpu_and_cpu_give_the_same_graph():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 32)).astype(np.float32)
    cpu, gpu = build_knn_graph(x, 5, device="cpu"), build_knn_graph(x, 5, device="cuda")
    assert np.array_equal(cpu.dst, gpu.dst)


def test_offline_minilm_embeds_real_passages(hotpot_passages):
    _, passages = hotpot_passages
    texts = passages["text"].head(12).tolist()
    encoder = SentenceEncoder("all-MiniLM-L6-v2", device="cpu")
    vectors = encoder.encode(texts)
    assert vectors.shape == (12, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # a passage is nearer to a paraphrase of itself than to an unrelated passage
    probe = encoder.encode([texts[0].replace(".", " ."), "A recipe for tomato soup."])
    assert float(vectors[0] @ probe[0]) > float(vectors[0] @ probe[1]) + 0.3


def test_a_missing_hub_model_fails_with_a_clear_message(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match="could not load sentence encoder 'no-such/model'"):
        SentenceEncoder("no-such/model", device="cpu")
