"""KNN KG (paper §3) on vectors whose neighbours are known, and with the real encoder."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from kgp_kedro.config.sections import AnnParams
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs import BUILDERS
from kgp_kedro.graphs.builders.knn import KnnBuilder, build_knn_graph
from kgp_kedro.models import resolve_device
from kgp_kedro.models.encoders import SentenceEncoder

# four unit vectors at angles 0, 10, 90 and 100 degrees
ANGLES = np.deg2rad([0, 10, 90, 100])
VECTORS = np.stack([np.cos(ANGLES), np.sin(ANGLES)], axis=1)


def test_each_passage_points_to_its_k_most_similar_others():
    edges = build_knn_graph(VECTORS, k=1, metric="cosine", device="cpu")
    assert all(edges.directed) and set(edges.relation) == {"knn"}
    assert list(zip(edges.src.tolist(), edges.dst.tolist())) == [(0, 1), (1, 0), (2, 3), (3, 2)]
    assert np.allclose(edges.weight, np.cos(np.deg2rad(10)))
    two = build_knn_graph(VECTORS, k=2, metric="cosine", device="cpu")
    # 1 is at 80 degrees from 2 and 90 from 3; 0 is at 90 from 2 and 100 from 3
    assert dict(zip(two.src[1::2].tolist(), two.dst[1::2].tolist())) == {0: 2, 1: 2, 2: 1, 3: 1}


def test_ties_go_to_the_lower_index_at_the_k_th_neighbour_too():
    """Three equal vectors and one orthogonal: 0's two neighbours are 1 and 2 (tied, in index
    order); 3 is at cosine 0 from all three, so its two are 0 and 1, and 1's are 0 and 2."""
    x = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    edges = build_knn_graph(x, k=2, metric="cosine", device="cpu")
    assert list(zip(edges.src.tolist(), edges.dst.tolist())) == [
        (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (3, 0), (3, 1)]
    assert edges.weight.tolist() == [1.0] * 6 + [0.0, 0.0]


def test_k_larger_than_the_collection_is_clamped():
    edges = build_knn_graph(VECTORS, k=10, metric="cosine", device="cpu")
    assert len(edges) == 4 * 3
    assert build_knn_graph(VECTORS[:1], k=3, metric="cosine", device="cpu").src.size == 0


def test_cosine_ignores_the_norm_but_dot_does_not():
    angles = np.deg2rad([0, 10, 30])
    x = np.stack([np.cos(angles), np.sin(angles)], axis=1) * np.array([[1.0], [1.0], [5.0]])
    assert build_knn_graph(x, k=1, metric="cosine").dst[0] == 1   # 10 degrees away
    assert build_knn_graph(x, k=1, metric="dot").dst[0] == 2      # 5 cos 30 > cos 10


def test_bad_k_or_metric_is_refused():
    with pytest.raises(ValueError, match="k must be >= 1"):
        build_knn_graph(VECTORS, k=0, metric="cosine", device="cpu")
    with pytest.raises(ValueError, match="metric must be"):
        build_knn_graph(VECTORS, k=1, metric="l2", device="cpu")


@pytest.mark.parametrize("kind", ["flat", "hnsw"])
def test_a_faiss_index_gives_the_exact_graph_on_small_collections(kind):
    ann = AnnParams(kind=kind).model_dump()
    exact = build_knn_graph(VECTORS, k=2, metric="cosine", device="cpu")
    via_index = build_knn_graph(VECTORS, k=2, metric="cosine", device="cpu", ann=ann)
    assert via_index.src.tolist() == exact.src.tolist()
    assert via_index.dst.tolist() == exact.dst.tolist()
    np.testing.assert_allclose(via_index.weight, exact.weight, atol=1e-6)


def test_the_builder_reads_the_collection_vectors():
    assert BUILDERS.get("knn") is KnnBuilder
    ids = ["p0", "p1", "p2", "p3"]
    collection = Collection("c", ids, ids, ids, ids)
    params = KnnBuilder.Params(device="cpu")
    with pytest.raises(ValueError, match="needs passage embeddings"):
        KnnBuilder(params).build(collection, params)
    collection.vectors = VECTORS
    graph = KnnBuilder(params).build(collection, KnnBuilder.Params(k=1, device="cpu"))
    # directed: p0 -> p1 and p1 -> p0, so each has exactly its nearest one as a neighbour
    assert [graph.neighbors(p) for p in ids] == [["p1"], ["p0"], ["p3"], ["p2"]]
    assert graph.n_edges() == 2


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
    cpu = build_knn_graph(x, 5, metric="cosine", device="cpu")
    gpu = build_knn_graph(x, 5, metric="cosine", device="cuda")
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
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # read once when huggingface_hub is imported (an earlier test may have imported it): without
    # this the hub is tried over the network, which times out here after about a minute
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(OSError, match="could not load sentence encoder 'no-such/model'"):
        SentenceEncoder("no-such/model", device="cpu")
