"""On-disk caches of passage embeddings and entity mentions: a warm cache serves exactly what a
fresh computation gives, computes only what is missing (in one batch), keeps identities apart
and never serves a torn write."""
from __future__ import annotations

import logging
import math
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.graphs.builders import entity as entity_module
from kgp_kedro.graphs.builders.entity import EntityBuilder, LinkerParams, linker_identity
from kgp_kedro.models import embeddings as embeddings_module
from kgp_kedro.models import load_encoder
from kgp_kedro.models.cache import TextCache, cached_map, path_fingerprint
from kgp_kedro.models.embeddings import (LazyEncoder, embed_passages, embedding_cache,
                                         encoder_identity)
from kgp_kedro.pipelines.embed.nodes import embed


class Counting:
    """An encoder that records the batches it is asked to encode."""

    def __init__(self, encoder) -> None:
        self.inner = encoder
        self.name, self.device = encoder.name, encoder.device
        self.dtype, self.normalize = encoder.dtype, encoder.normalize
        self.batches: list[list[str]] = []

    def encode(self, texts, show_progress=False):
        self.batches.append(list(texts))
        return self.inner.encode(texts, show_progress=show_progress)


class Stub:
    """A deterministic fake encoder: identity attributes only matter for the keys."""

    def __init__(self, name="all-MiniLM-L6-v2", dtype="float32", normalize=True,
                 device="cpu") -> None:
        self.name, self.dtype, self.normalize, self.device = name, dtype, normalize, device
        self.calls = 0

    def encode(self, texts, show_progress=False):
        self.calls += 1
        return np.array([[len(t), sum(map(ord, t)) % 97, 1.0] for t in texts], dtype=np.float32)


@pytest.fixture(scope="module")
def passages(hotpot_passages):
    """100 real HotpotQA passages with distinct texts."""
    _, table = hotpot_passages
    return table.drop_duplicates("text").drop_duplicates("passage_id").head(100)


@pytest.fixture(scope="module")
def fp32():
    return load_encoder(EncoderParams(device="cpu", dtype="float32"))


@pytest.fixture(scope="module")
def fresh(passages, fp32):
    """The passages' fp32 vectors, computed without any cache."""
    return fp32.encode(passages["text"].tolist())


def _matrix(table: pd.DataFrame) -> np.ndarray:
    return np.stack(table["embedding"].to_list())


def _messages(caplog, name: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == name]


def test_cached_vectors_are_bit_identical_to_fresh_ones(passages, fp32, fresh, tmp_path,
                                                        caplog):
    cache_dir = str(tmp_path / "emb")
    caplog.set_level(logging.INFO, logger=embeddings_module.__name__)

    cold = Counting(fp32)
    first = embed_passages(pd.concat([passages, passages]), cold, cache_dir)  # ids deduplicated
    assert first["passage_id"].tolist() == passages["passage_id"].tolist()
    assert len(cold.batches) == 1 and len(cold.batches[0]) == len(passages)
    assert np.array_equal(_matrix(first), fresh)   # a cold cache encodes as without one

    warm = Counting(fp32)
    second = embed_passages(passages, warm, cache_dir)
    assert warm.batches == []                       # nothing encoded
    assert np.array_equal(_matrix(second), fresh)   # bit for bit, float32 through SQLite
    assert all(v.dtype == np.float32 for v in second["embedding"])
    log = _messages(caplog, embeddings_module.__name__)
    # the estimate before encoding (models/estimates.py), then the summary; none when all cached
    assert log[0].startswith("Encoding 100 passages with all-MiniLM-L6-v2 on cpu (0 cached or "
                             "repeated): about 5 s") and " in float32, at " in log[0]
    assert "100 passages: 0 cached, 100 computed" in log[1]
    assert "100 passages: 100 cached, 0 computed" in log[2] and "nothing computed" in log[2]

    # a passage edited: only it is encoded, alone in one batch; the others are the cached rows
    edited = passages.copy()
    edited.iloc[3, edited.columns.get_loc("text")] += " (edited)"
    partial = Counting(fp32)
    third = embed_passages(edited, partial, cache_dir)
    assert partial.batches == [[edited["text"].iloc[3]]]
    others = np.arange(len(passages)) != 3
    assert np.array_equal(_matrix(third)[others], fresh[others])
    # a text encoded in another batch moves only in the last float bits
    assert np.allclose(_matrix(third)[3], fp32.encode([edited["text"].iloc[3]])[0], atol=1e-6)


def test_the_embed_node_loads_no_encoder_when_everything_is_cached(passages, fp32, fresh,
                                                                    tmp_path, monkeypatch):
    params = {"model": "all-MiniLM-L6-v2", "device": "cpu", "dtype": "float32",
              "cache_dir": str(tmp_path / "emb")}
    cold = embed(passages, params)
    assert np.array_equal(_matrix(cold), fresh)

    def no_loading(_):
        raise AssertionError("the encoder was loaded")

    monkeypatch.setattr("kgp_kedro.models.loading.load_encoder", no_loading)
    warm = embed(passages, params)
    assert np.array_equal(_matrix(warm), _matrix(cold))
    # the lazy encoder resolves what the real one resolves
    lazy = LazyEncoder(EncoderParams(device="cpu", dtype="float32"))
    assert encoder_identity(lazy) == encoder_identity(fp32)


def test_no_cache_dir_means_no_cache(passages, tmp_path, monkeypatch, caplog):
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.INFO, logger=embeddings_module.__name__)
    stub = Stub()
    embed_passages(passages, stub, None)
    embed_passages(passages, stub, None)
    assert stub.calls == 2 and list(tmp_path.iterdir()) == []
    assert _messages(caplog, embeddings_module.__name__)[-1].endswith("; no cache")


def test_dtype_normalisation_device_and_weights_key_separate_entries(passages, tmp_path):
    cache_dir = str(tmp_path / "emb")
    embed_passages(passages, Stub(dtype="float32"), cache_dir)
    for other in (Stub(dtype="bfloat16"), Stub(normalize=False), Stub(device="cuda:0")):
        embed_passages(passages, other, cache_dir)
        assert other.calls == 1                     # nothing shared with the fp32 entries
    again = Stub(dtype="float32")
    embed_passages(passages, again, cache_dir)
    assert again.calls == 0
    assert Stub(device="cuda:0").device != Stub(device="cuda:1").device
    assert encoder_identity(Stub(device="cuda:0")) == encoder_identity(Stub(device="cuda:1"))

    # a local model directory: retrained weights of the same size give a new identity
    model = tmp_path / "my-encoder"
    (model / "1_Pooling").mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"\x00" * 64)
    local = Stub(name=str(model))
    before = encoder_identity(local)
    assert before["files"] and before["model"] is None
    (model / "model.safetensors").write_bytes(b"\x01" * 64)
    assert encoder_identity(local)["files"] != before["files"]
    (model / ".git").mkdir()
    (model / ".git" / "HEAD").write_text("ref")     # not part of the model
    assert encoder_identity(local)["files"] == path_fingerprint(model)


def test_file_hashes_are_memoised_by_size_and_mtime(tmp_path):
    (tmp_path / "w.bin").write_bytes(b"abc")
    memo: dict[str, str] = {}
    first = path_fingerprint(tmp_path, memo)
    assert len(memo) == 1
    memo[next(iter(memo))] = "0" * 64              # a memoised hash is trusted ...
    assert path_fingerprint(tmp_path, memo) != first
    os.utime(tmp_path / "w.bin", ns=(1, 1))         # ... until the file's mtime changes
    assert path_fingerprint(tmp_path, memo) == first


def _table_records(table: pd.DataFrame) -> list:
    return [(r.passage_id, list(r.surfaces), list(r.entities),
             [None if math.isnan(x) else x for x in r.scores]) for r in table.itertuples()]


def test_cached_mentions_equal_fresh_ones(passages, tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger=entity_module.__name__)
    cached = LinkerParams(cache_dir=str(tmp_path / "ner"))
    fresh = EntityBuilder(EntityBuilder.Params(linker=LinkerParams(cache_dir=None))
                          ).featurize(passages)
    assert sum(map(len, fresh["entities"])) > 50   # real mentions
    cold = EntityBuilder(EntityBuilder.Params(linker=cached)).featurize(passages)
    assert _table_records(cold) == _table_records(fresh)

    calls = []
    real = entity_module.make_linker
    monkeypatch.setattr(entity_module, "make_linker",
                        lambda *a, **k: calls.append(a) or real(*a, **k))
    warm = EntityBuilder(EntityBuilder.Params(linker=cached)).featurize(pd.concat([passages] * 2))
    assert calls == []                               # spaCy not even loaded
    assert _table_records(warm) == _table_records(fresh)
    log = _messages(caplog, entity_module.__name__)
    # fresh and cold: the estimate, then the summary; warm: the summary only (the estimate
    # quotes the load average at the moment, which moves between the two)
    assert log[0].split(": about")[0] == log[2].split(": about")[0]
    assert log[0].startswith("Linking entities in 100 passages (0 cached or repeated): about 5 s")
    assert log[0].endswith("; at 170 passages/s")
    assert "0 cached, 100 computed" in log[3] and "100 cached, 0 computed" in log[4]

    # other labels are another identity: everything linked again
    fewer = cached.model_copy(update={"labels": ["PERSON"]})
    assert linker_identity(fewer) != linker_identity(cached)
    people = EntityBuilder(EntityBuilder.Params(linker=fewer)).featurize(passages)
    assert len(calls) == 1
    assert sum(map(len, people["entities"])) < sum(map(len, fresh["entities"]))
    # the batch size is not: same entries
    bigger = cached.model_copy(update={"batch_size": 8})
    EntityBuilder(EntityBuilder.Params(linker=bigger)).featurize(passages)
    assert len(calls) == 1


def test_a_repeated_text_is_computed_once_with_or_without_a_cache(tmp_path):
    texts = ["b", "a", "b", "c", "a"]
    for cache in (None, TextCache(tmp_path, {"kind": "test"}, encode=str, decode=str)):
        batches = []
        values, stats = cached_map(texts, lambda batch: batches.append(batch) or
                                   [t.upper() for t in batch], cache)
        assert batches == [["b", "a", "c"]]             # the same single call either way
        assert values == ["B", "A", "B", "C", "A"]
        assert (stats.total, stats.cached, stats.computed) == (5, 0, 3)
        assert stats.describe("passages").startswith(
            "5 passages: 0 cached, 5 computed (3 distinct texts, ")
    values, stats = cached_map(texts + ["d"], lambda batch: [t.upper() for t in batch], cache)
    assert (stats.cached, stats.computed) == (5, 1) and values[-1] == "D"
    cache.close()


def test_linker_scores_and_missing_scores_survive_the_cache(tmp_path):
    from kgp_kedro.graphs.linking import Mention

    cache = entity_module.mention_cache(LinkerParams(backend="tagme", cache_dir=str(tmp_path)))
    mentions = [[Mention("Alf Clausen", "Alf Clausen", 0.4123456789012345)],
                [], [Mention("Springfield’s", "springfield", None)]]
    texts = ["a", "b", "c"]
    first, _ = cached_map(texts, lambda batch: mentions, cache)
    again, stats = cached_map(texts, lambda batch: pytest.fail("recomputed"), cache)
    cache.close()
    assert again == first == mentions and stats.cached == 3


_TORN = """
import os, signal, sys
from kgp_kedro.models.cache import TextCache
cache = TextCache(sys.argv[1], {"kind": "test"}, encode=str, decode=str)
cache.set_many({f"committed {i}": f"value {i}" for i in range(50)})
with cache._cache.transact():
    for i in range(50):
        cache._cache.set(cache.key(f"torn {i}"), f"value {i}")
    os.kill(os.getpid(), signal.SIGKILL)   # killed mid-transaction
"""


def test_a_write_killed_midway_serves_nothing_of_it(tmp_path):
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(_TORN), str(tmp_path)],
                            capture_output=True, text=True)
    assert result.returncode == -signal.SIGKILL, result.stderr
    cache = TextCache(tmp_path, {"kind": "test"}, encode=str, decode=str)
    texts = [f"committed {i}" for i in range(50)] + [f"torn {i}" for i in range(50)]
    found = cache.get_many(texts)
    assert found == {f"committed {i}": f"value {i}" for i in range(50)}   # all or none
    computed = []
    values, stats = cached_map(texts, lambda batch: computed.extend(batch) or
                               [t.upper() for t in batch], cache)
    assert computed == texts[50:] and stats.cached == 50 and stats.computed == 50
    assert values[50:] == [t.upper() for t in texts[50:]]
    cache.close()


def test_an_undecodable_entry_is_recomputed(passages, tmp_path):
    cache_dir = str(tmp_path / "emb")
    stub = Stub()
    first = embed_passages(passages.head(5), stub, cache_dir)
    cache = embedding_cache(cache_dir, stub)
    cache._cache.set(cache.key(passages["text"].iloc[2]), b"\x00\x01\x02")  # not float32 rows
    cache.close()
    again = Stub()
    second = embed_passages(passages.head(5), again, cache_dir)
    assert again.calls == 1
    assert np.array_equal(_matrix(second), _matrix(first))


def test_an_unusable_cache_directory_falls_back_to_computing(passages, tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    stub = Stub()
    table = embed_passages(passages.head(3), stub, str(blocker / "emb"))
    assert stub.calls == 1 and len(table) == 3
    assert any("unusable" in r.getMessage() for r in caplog.records)
