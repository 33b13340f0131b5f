"""Streamed KG edges (one Parquet row group per collection and setting) on real HotpotQA
collections: the same ``kg_nodes`` / ``kg_edges`` and KG-quality rows as the in-memory build."""
from __future__ import annotations

import pickle

import pandas as pd
import pytest

from kgp_kedro.pipelines.parameter_tree import parse_variant
from kgp_kedro.io.edge_table import EdgeTableDataset
from kgp_kedro.evaluation import kg_quality_rows, seed_passages
from kgp_kedro.graphs.build import GraphTables, build_variant, stream_variant
from kgp_kedro.graphs.edge_table import EdgeTable

VARIANT = {"builder": "tfidf", "sweep": {"n_kw": [1, 5, 20]}}


def _plain(edges: pd.DataFrame) -> pd.DataFrame:
    """Values only (the order of a categorical's categories is no part of the table)."""
    return edges.astype({c: object for c in edges.columns
                         if isinstance(edges[c].dtype, pd.CategoricalDtype)}).reset_index(drop=True)


@pytest.fixture(scope="module")
def built(hotpot_passages):
    questions, passages = hotpot_passages
    spec = parse_variant("tfidf", VARIANT, "kg.variants.tfidf")
    memory = build_variant(passages, spec.make_builder(), spec.settings, "tfidf")
    streamed = stream_variant(passages, spec.make_builder(), spec.settings, "tfidf")
    return questions, passages, memory, streamed


def test_streamed_edges_equal_the_in_memory_build_through_the_catalog(built, tmp_path):
    _, _, (nodes, edges), (streamed_nodes, streamed) = built
    pd.testing.assert_frame_equal(streamed_nodes, nodes)
    assert len(streamed) == len(edges) > 0
    path = tmp_path / "kg_edges_tfidf.parquet"
    EdgeTableDataset(filepath=str(path)).save(streamed)
    loaded = EdgeTableDataset(filepath=str(path)).load()
    # the file reads whole as before, and chunk by chunk without reading the rest
    pd.testing.assert_frame_equal(_plain(pd.read_parquet(path)), _plain(edges))
    pd.testing.assert_frame_equal(_plain(loaded.to_pandas()), _plain(edges))
    assert loaded.settings == ["n_kw=1", "n_kw=5", "n_kw=20"]
    assert len(loaded.keys()) == edges.groupby(["collection_id", "setting"], observed=True).ngroups
    cid = str(edges["collection_id"].iloc[0])
    one = edges[(edges["collection_id"] == cid) & (edges["setting"] == "n_kw=5")]
    pd.testing.assert_frame_equal(_plain(loaded.chunk(cid, "n_kw=5")), _plain(one))
    assert loaded.chunk(cid, "n_kw=99").empty
    # a process runner's worker gets the file's path and reopens it
    assert pickle.loads(pickle.dumps(loaded)).keys() == loaded.keys()


def test_a_table_in_memory_saves_chunked_and_an_unchunked_file_still_loads(built, tmp_path):
    _, _, (_, edges), _ = built
    EdgeTableDataset(filepath=str(tmp_path / "a.parquet")).save(edges)
    chunked = EdgeTableDataset(filepath=str(tmp_path / "a.parquet")).load()
    edges.to_parquet(tmp_path / "b.parquet")   # a file of the previous releases: one table
    whole = EdgeTable(str(tmp_path / "b.parquet"))
    assert whole.keys() == chunked.keys() and whole.settings == chunked.settings
    for cid, setting in chunked.keys():
        pd.testing.assert_frame_equal(_plain(whole.chunk(cid, setting)),
                                      _plain(chunked.chunk(cid, setting)))


def test_kg_quality_rows_are_the_same_from_a_streamed_table_in_question_order(built):
    questions, passages, (nodes, edges), (_, streamed) = built
    # a collection asked about twice, not one after the other: rows keep the questions' order
    asked = questions.iloc[[0, 1, 0, 2]].reset_index(drop=True)
    seeds = seed_passages(asked.drop_duplicates("question_id"), passages, 5)
    memory = kg_quality_rows(asked, passages, seeds, GraphTables(nodes, edges), "tfidf")
    streamed_rows = kg_quality_rows(asked, passages, seeds, GraphTables(nodes, streamed), "tfidf")
    pd.testing.assert_frame_equal(streamed_rows, memory)
    ids = asked["question_id"].tolist()
    assert memory["question_id"].tolist() == ids * 3
    assert memory["setting"].tolist() == [s for s in ["n_kw=1", "n_kw=5", "n_kw=20"]
                                          for _ in ids]
