"""SF-EM, precision, recall, density: the paper's definitions worked by hand."""
from __future__ import annotations

import numpy as np
import pytest

import pandas as pd

from kgp_kedro.evaluation import graph_stats, kg_quality_rows, neighbourhood_scores, seed_passages
from kgp_kedro.graphs import Edges, Graph, Nodes
from kgp_kedro.graphs.build import GraphTables, build_variant
from kgp_kedro.graphs.builders.tfidf import TfidfBuilder
from kgp_kedro.pipelines.kg_quality.nodes import SUMMARY_COLUMNS, summarise_kg_quality
from kgp_kedro.reporting import plot_kg_quality
from kgp_kedro.search import tfidf_search


def _graph(nodes, edges):
    """A passage graph from ``(src, dst, directed)`` triples of node ids."""
    position = {n: i for i, n in enumerate(nodes)}
    n = len(edges)
    return Graph(Nodes.of_passages(nodes, nodes),
                 Edges(np.array([position[s] for s, _, _ in edges], dtype=np.int64),
                       np.array([position[d] for _, d, _ in edges], dtype=np.int64),
                       np.ones(n), [""] * n,
                       ["knn" if directed else "keyword" for _, _, directed in edges],
                       [directed for _, _, directed in edges], ["{}"] * n))


#   a - b - c      d -> e (directed, KNN-style)      f isolated
NODES = ["a", "b", "c", "d", "e", "f"]
ADJ = _graph(NODES, [("a", "b", False), ("b", "c", False), ("d", "e", True)])


def test_sf_em_precision_recall_by_hand():
    # seeds {a}: C1 = {a, b}; S = {b, c}: one of two supporting passages covered
    s = neighbourhood_scores(ADJ, ["a"], ["b", "c"])
    assert (s.n_candidates, s.n_hit, s.sf_em) == (2, 1, 0.0)
    assert s.precision == pytest.approx(1 / 2) and s.recall == pytest.approx(1 / 2)
    # seeds {b}: C1 = {a, b, c} covers S: SF-EM 1, precision 2/3
    s = neighbourhood_scores(ADJ, ["b"], ["b", "c"])
    assert s.sf_em == 1.0 and s.precision == pytest.approx(2 / 3) and s.recall == 1.0


def test_directed_edges_are_followed_forward_only():
    assert neighbourhood_scores(ADJ, ["d"], ["e"]).sf_em == 1.0   # d -> e
    assert neighbourhood_scores(ADJ, ["e"], ["d"]).sf_em == 0.0   # e does not reach d
    assert ADJ.neighbors("e") == []


def test_seeds_are_counted_once_and_unlabelled_questions_raise():
    s = neighbourhood_scores(ADJ, ["f", "f"], ["f"])
    assert (s.n_seeds, s.n_candidates, s.sf_em, s.precision) == (1, 1, 1.0, 1.0)
    with pytest.raises(ValueError, match="no supporting passages"):
        neighbourhood_scores(ADJ, ["a"], [])


def test_density_and_average_neighbours_by_hand():
    stats = graph_stats(ADJ)
    # 3 joined pairs out of 6*5/2 = 15; neighbours a1 b2 c1 d1 e0 f0 -> 5/6
    assert stats["n_nodes"] == 6
    assert stats["n_edges"] == 3
    assert stats["density"] == pytest.approx(3 / 15)
    assert stats["avg_neighbors"] == pytest.approx(5 / 6)


def test_a_mutual_knn_pair_is_one_edge():
    adj = _graph(["x", "y"], [("x", "y", True), ("y", "x", True)])
    assert adj.n_edges() == 1 and adj.density() == 1.0 and adj.avg_neighbors() == 1.0


def test_seeds_and_quality_rows_on_real_collections(hotpot_passages):
    questions, passages = hotpot_passages
    seeds = seed_passages(questions, passages, 5)
    assert len(seeds) == 5 * len(questions)
    q = questions.iloc[0]
    ps = passages[passages["collection_id"] == q.collection_id]
    order, _ = tfidf_search(q.question, ps["text"].tolist(), 5)
    assert seeds[seeds["question_id"] == q.question_id]["passage_id"].tolist() == \
        ps["passage_id"].to_numpy()[order].tolist()

    settings = [(f"n_kw={n}", TfidfBuilder.Params(n_kw=n)) for n in (1, 10)]
    nodes, edges = build_variant(passages, TfidfBuilder(TfidfBuilder.Params()), settings, "tfidf")
    tables = GraphTables(nodes, edges)
    rows = kg_quality_rows(questions, passages, seeds, tables, "tfidf")
    assert len(rows) == 2 * len(questions) and set(rows["setting"]) == {"n_kw=1", "n_kw=10"}
    # each row is neighbourhood_scores on the collection's graph under its setting
    row = rows[(rows["question_id"] == q.question_id) & (rows["setting"] == "n_kw=10")].iloc[0]
    graph = tables.graph(q.collection_id, "n_kw=10")
    expected = neighbourhood_scores(graph, seeds[seeds["question_id"] == q.question_id]
                                    ["passage_id"], ps.loc[ps["is_supporting"], "passage_id"])
    assert (row["n_hit"], row["recall"], row["sf_em"]) == (expected.n_hit, expected.recall,
                                                           expected.sf_em)
    assert row["n_nodes"] == len(ps) and row["density"] == pytest.approx(graph.density())
    # the neighbour ratio: the share of the collection the seeds' neighbourhood covers
    assert row["collection_passages"] == len(ps)
    assert row["neighbour_ratio"] == pytest.approx(expected.n_candidates / len(ps))
    # more keywords: a denser graph and a neighbourhood that covers at least as much
    dense, sparse = (rows[rows["setting"] == s].set_index("question_id") for s in
                     ("n_kw=10", "n_kw=1"))
    assert (dense["n_edges"] >= sparse["n_edges"]).all()
    assert (dense["recall"] >= sparse["recall"]).all()


def _rows(source, setting, n_passages, candidates, neighbours):
    """Per-question rows of one setting: collections of ``n_passages``, ``|C1|`` each."""
    return pd.DataFrame([{"source": source, "variant": "knn_st", "setting": setting,
                          "question_id": f"{source}{i}", "collection_id": f"{source}{i}",
                          "n_candidates": c, "collection_passages": n, "neighbour_ratio": c / n,
                          "avg_neighbors": neighbours, "sf_em": 1.0, "precision": 0.1,
                          "recall": 1.0, "density": 0.01, "n_nodes": n}
                         for i, (n, c) in enumerate(zip(n_passages, candidates))])


def test_neighbour_ratio_compares_collections_of_different_sizes():
    """The same 10 neighbours per node: |C1| = 60 of a 100-passage collection, 60 of a
    700-passage one; the neighbour ratio tells them apart, the average neighbours cannot."""
    per_question, summary = summarise_kg_quality(
        _rows("small", "k=10", [100, 100], [60, 40], 10.0),
        _rows("large", "k=10", [700, 700], [60, 80], 10.0))
    assert list(summary.columns) == SUMMARY_COLUMNS
    cell = summary.set_index("source")
    assert cell.loc["small", "neighbour_ratio"] == pytest.approx((0.6 + 0.4) / 2)
    assert cell.loc["large", "neighbour_ratio"] == pytest.approx((60 / 700 + 80 / 700) / 2)
    assert cell.loc["small", "avg_neighbors"] == cell.loc["large", "avg_neighbors"]
    assert (cell["avg_passages"] == [100, 700]).all()
    assert len(per_question) == 4


def test_figure_switches_its_x_axis_to_the_neighbour_ratio():
    _, summary = summarise_kg_quality(_rows("hotpotqa", "k=5", [700], [30], 5.0),
                                      _rows("hotpotqa", "k=20", [700], [105], 20.0))
    fig = plot_kg_quality(summary)
    assert [list(t.x) for t in fig.data] == [[5.0, 20.0], [5.0, 20.0]]   # SF-EM, precision
    assert fig.layout.xaxis.title.text == "average neighbours per node"
    menu = fig.layout.updatemenus[0]
    views = {b.label: b.args[0]["x"] for b in menu.buttons}
    assert views["x: neighbour ratio |C1| / collection passages"] == [
        [pytest.approx(30 / 700), pytest.approx(105 / 700)]] * 2
    assert menu.buttons[1].args[1]["xaxis.title.text"] == \
        "neighbour ratio |C1| / collection passages"
    ratio = plot_kg_quality(summary, x="neighbour_ratio")
    assert list(ratio.data[0].x) == [pytest.approx(30 / 700), pytest.approx(105 / 700)]
    assert ratio.layout.updatemenus[0].active == 1
    with pytest.raises(ValueError):
        plot_kg_quality(summary, x="density")
