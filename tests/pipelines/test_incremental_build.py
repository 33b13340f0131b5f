"""Incremental add / remove (issue 23): after adding or removing sources, questions or documents,
the stages' nodes (ingest -> passages -> embed -> kg) rebuild only the collections that changed,
the others are read from the KG cache (``kg.cache_dir``), and every table equals a
from-scratch build with empty caches."""
from __future__ import annotations

import json
import logging
import sys
import types

import pandas as pd
import pytest

from kgp_kedro.pipelines.parameter_tree import parse_variant
from kgp_kedro.corpus.collection import iter_collections
from kgp_kedro.corpus.sources import read_source_with_skipped
from kgp_kedro.graphs.build import stream_variant
from kgp_kedro.graphs.cache import GraphCache
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.models import load_encoder
from kgp_kedro.models.devices import torch_threads
from kgp_kedro.models.embeddings import EmbeddingLookup, embed_passages
from kgp_kedro.pipelines.ingest.nodes import add_negative_documents, combine_sources
from kgp_kedro.pipelines.kg.nodes import build_graphs, featurize_passages
from kgp_kedro.pipelines.passages.nodes import split_into_passages
from tests.conftest import HOTPOT, MUSIQUE, TWOWIKI
from tests.reliability.corrupt import first_records
from tests.tables import assert_same_table

NEGATIVES = {"negatives_per_question": 2, "seed": 42, "collection_size": None}
VARIANTS = {
    "tfidf": {"builder": "tfidf", "sweep": {"n_kw": [1, 5]}},
    "knn_st": {"builder": "knn", "embeddings": "minilm", "device": "cpu", "sweep": {"k": [1, 3]}},
    "tagme": {"builder": "entity", "sweep": {"prior_threshold": [0.0, 0.8]}},
}
# sources of set A, and B: what is added (a source) to A
A = [("hotpotqa", HOTPOT, 3), ("musique", MUSIQUE, 2)]
B = [("2wikimultihopqa", TWOWIKI, 2)]


@pytest.fixture(scope="module")
def encoder():
    """The offline MiniLM on CPU in float32, loaded once for the module's builds."""
    return load_encoder(EncoderParams(device="cpu", dtype="float32"))


def _stages(sources, caches, encoder, variants=VARIANTS):
    """The ingest, passages, embed and kg nodes on ``sources`` (``(dataset, path, limit)``; a
    documents folder's files parsed through a cache under ``caches``), every cache under
    ``caches``; returns the passages, the KG tables per variant (nodes, edges as one table)
    and the per-variant :class:`GraphCache` counts (hits, misses)."""
    reads = [read_source_with_skipped(d, p, d, n, parse_cache=str(caches / "parsed"))
             for d, p, n in sources]
    questions, own, _ = combine_sources(*reads)
    ingest = {"sources": [{"dataset": d, "path": str(p), "limit": n} for d, p, n in sources],
              **NEGATIVES}
    documents = add_negative_documents(questions, own, ingest)
    passages = split_into_passages(documents, {})
    embeddings = embed_passages(passages, encoder, str(caches / "embeddings"))
    tables, counts = {}, {}
    for name, raw in variants.items():
        raw = {**raw, **({"linker": {"cache_dir": str(caches / "entities")}}
                         if raw["builder"] == "entity" else {})}
        features = (featurize_passages(passages, raw, name) if raw["builder"] == "entity"
                    else None)
        spec = parse_variant(name, raw, name)
        builder = spec.make_builder(features)
        cache = GraphCache(caches / "kg", builder, spec.settings)
        lookup = (EmbeddingLookup(embeddings, encoder.name)
                  if spec.embeddings is not None else None)
        nodes, edges = stream_variant(passages, builder, spec.settings, name, lookup, cache)
        tables[name] = (nodes, edges.to_pandas())
        counts[name] = (cache.hits, cache.misses)
    return passages, tables, counts


def _assert_same(one, other):
    """Equal tables, bit for bit: the passages, and each variant's nodes and edges (the KNN
    KG's cosine weights included). A vector read from the embedding cache was encoded with
    other texts, on another number of threads, than a from-scratch build encodes it; the
    encoder encodes each text alone on one thread, so it is the same vector in either dtype."""
    passages, tables, _ = one
    pd.testing.assert_frame_equal(passages, other[0], check_exact=True)
    assert tables.keys() == other[1].keys()
    for name, (nodes, edges) in tables.items():
        assert_same_table(nodes, other[1][name][0], name)
        assert len(edges) > 0
        assert_same_table(edges, other[1][name][1], name)


def _collections(result) -> int:
    return result[0]["collection_id"].nunique()


@pytest.fixture(scope="module", params=["float32", "bfloat16"])
def builds(tmp_path_factory, request):
    """A from scratch; A + B on A's warm caches; A + B from scratch; A again on the warm ones:
    with the encoder in fp32 and in bf16 (whichever ``auto`` gives on this CPU, the other
    CPU's is reproduced), the warm builds encoding on 1 PyTorch thread, the from-scratch A + B
    on 2."""
    warm, cold = tmp_path_factory.mktemp("warm"), tmp_path_factory.mktemp("cold")
    encoder = load_encoder(EncoderParams(device="cpu", dtype=request.param))
    with torch_threads(1):
        a = _stages(A, warm, encoder)
        ab = _stages(A + B, warm, encoder)
    with torch_threads(2):
        ab_scratch = _stages(A + B, cold, encoder)
    with torch_threads(1):
        a_again = _stages(A, warm, encoder)
    return a, ab, ab_scratch, a_again


def test_adding_a_source_builds_only_its_collections_and_equals_a_from_scratch_build(builds):
    a, ab, ab_scratch, _ = builds
    _assert_same(ab, ab_scratch)
    n_a, n_ab = _collections(a), _collections(ab)
    assert n_ab > n_a > 0
    for name in VARIANTS:
        assert a[2][name] == (0, n_a)                # cold: every collection built
        assert ab[2][name] == (n_a, n_ab - n_a)      # warm: only the added source's built
        assert ab_scratch[2][name] == (0, n_ab)


def test_removing_a_source_builds_nothing_and_equals_a_from_scratch_build(builds):
    a, _, _, a_again = builds
    _assert_same(a_again, a)
    for name in VARIANTS:
        assert a_again[2][name] == (_collections(a), 0)


def _folder(root, records):
    """A documents folder of the first HotpotQA questions' paragraphs (one Markdown file each)
    and their questions."""
    root.mkdir()
    for r, record in enumerate(records):
        for i, (title, sentences) in enumerate(record["context"][:3]):
            (root / f"q{r}_{i}.md").write_text(f"# {title}\n\n{''.join(sentences).strip()}\n")
    (root / "questions.jsonl").write_text("".join(
        json.dumps({"id": f"q{r}", "question": rec["question"], "answer": rec["answer"]}) + "\n"
        for r, rec in enumerate(records)))
    return root


def test_a_documents_folder_rebuilds_its_collection_only_when_its_files_change(tmp_path, caplog,
                                                                            encoder):
    records = first_records(HOTPOT, 3)
    folder = _folder(tmp_path / "docs", records)
    variants = {"tfidf": VARIANTS["tfidf"]}

    def run(caches):
        return _stages([("documents", folder, None)], caches, encoder, variants)

    warm = tmp_path / "warm"
    first = run(warm)
    assert first[2]["tfidf"] == (0, 1)
    # a question added: the collection's passages are unchanged, nothing is built
    with (folder / "questions.jsonl").open("a") as handle:
        handle.write(json.dumps({"id": "q9", "question": "Who wrote it?"}) + "\n")
    assert run(warm)[2]["tfidf"] == (1, 0)
    # a file added: the one collection changed, so it is built again; the other files'
    # parses and the other passages' vectors come from their caches
    (folder / "extra.md").write_text("# Extra\n\nA paragraph added to the folder later.\n")
    with caplog.at_level(logging.INFO):
        added = run(warm)
    assert added[2]["tfidf"] == (0, 1)
    n_files = len(list(folder.glob("*.md")))
    assert f"Parsed files: {n_files} files: {n_files - 1} cached, 1 computed" in caplog.text
    _assert_same(added, run(tmp_path / "cold"))
    # and removed again: the first build's graphs come back from the cache
    (folder / "extra.md").unlink()
    removed = run(warm)
    assert removed[2]["tfidf"] == (1, 0)
    pd.testing.assert_frame_equal(removed[1]["tfidf"][1], first[1]["tfidf"][1])


def test_the_kg_node_reads_unchanged_collections_from_kg_cache_dir(tmp_path, builds):
    passages = builds[0][0]
    variant = VARIANTS["tfidf"]
    cache_dir = str(tmp_path / "kg")
    nodes, edges = build_graphs(passages, variant, cache_dir, "tfidf")
    entries = sorted(p.name for p in (tmp_path / "kg").glob("*/*"))
    assert len(entries) == passages["collection_id"].nunique()
    again = build_graphs(passages, variant, cache_dir, "tfidf")
    assert sorted(p.name for p in (tmp_path / "kg").glob("*/*")) == entries
    pd.testing.assert_frame_equal(again[0], nodes)
    pd.testing.assert_frame_equal(again[1].to_pandas(), edges.to_pandas())
    # a changed setting is another key: nothing read back
    n_kw = {**variant, "sweep": {"n_kw": [2]}}
    build_graphs(passages, n_kw, cache_dir, "tfidf")
    assert len(list((tmp_path / "kg").glob("*/*"))) == 2 * len(entries)


def test_a_collections_key_follows_its_own_passages_features_and_settings(builds):
    """The key changes with a mention of one of the collection's passages, a setting or the
    builder's version, and not with a mention of a passage outside it."""
    passages = builds[0][0]
    first, other = [g for _, g in passages.groupby("collection_id", sort=False)][:2]
    ids = passages["passage_id"].drop_duplicates().tolist()
    mentions = pd.DataFrame({"passage_id": ids, "surfaces": [[] for _ in ids],
                             "entities": [[] for _ in ids], "scores": [[] for _ in ids]})
    spec = parse_variant("tagme", VARIANTS["tagme"], "tagme")

    def key(table, settings=spec.settings, version=None):
        builder = spec.make_builder(table)
        if version is not None:
            builder.version = version
        cache = GraphCache("unused", builder, settings)
        collection = next(iter_collections(first))
        return cache.key(collection, None)

    base = key(mentions)
    assert key(mentions.copy()) == base
    outside = next(p for p in other["passage_id"] if p not in set(first["passage_id"]))
    changed = mentions.copy()
    changed.loc[changed["passage_id"] == outside, "entities"] = pd.Series([["Paris"]]).values
    assert key(changed) == base
    inside = first["passage_id"].iloc[0]
    changed.loc[changed["passage_id"] == inside, "entities"] = pd.Series([["Paris"]]).values
    assert key(changed) != base
    assert key(mentions, settings=spec.settings[:1]) != base
    assert key(mentions, version=2) != base


def test_a_builder_defined_outside_a_file_is_cached_by_its_version(builds, monkeypatch, tmp_path):
    """A builder class from a notebook cell (its module has no file) still gets a cache."""
    from kgp_kedro.graphs.builders.tfidf import TfidfBuilder

    monkeypatch.setitem(sys.modules, "notebook_cell", types.ModuleType("notebook_cell"))
    cell_builder = type("CellBuilder", (TfidfBuilder,), {"__module__": "notebook_cell"})
    spec = parse_variant("tfidf", VARIANTS["tfidf"], "tfidf")
    passages = builds[0][0]
    cache = GraphCache(tmp_path, cell_builder(spec.params), spec.settings)
    nodes, edges = stream_variant(passages, cell_builder(spec.params), spec.settings, "cell",
                                  cache=cache)
    again = GraphCache(tmp_path, cell_builder(spec.params), spec.settings)
    stream_variant(passages, cell_builder(spec.params), spec.settings, "cell", cache=again)
    assert (cache.misses, again.hits) == (passages["collection_id"].nunique(),) * 2


def test_an_unreadable_entry_is_rebuilt_and_replaced(builds, tmp_path, caplog):
    passages = builds[0][0]
    first = passages[passages["collection_id"] == passages["collection_id"].iloc[0]]
    spec = parse_variant("tfidf", VARIANTS["tfidf"], "tfidf")

    def build():
        cache = GraphCache(tmp_path, spec.make_builder(), spec.settings)
        nodes, edges = stream_variant(first, spec.make_builder(), spec.settings, "t", cache=cache)
        return (cache.hits, cache.misses), edges.to_pandas()

    counts, edges = build()
    (entry,) = tmp_path.glob("*/*/edges-0.arrow")
    entry.write_bytes(entry.read_bytes()[:100])   # a torn file (e.g. a disk that filled up)
    with caplog.at_level(logging.WARNING):
        again, rebuilt = build()
    assert (counts, again) == ((0, 1), (0, 1)) and "unreadable" in caplog.text
    pd.testing.assert_frame_equal(rebuilt, edges)
    assert build()[0] == (1, 0)
