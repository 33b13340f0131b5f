"""The one graph model (kg_nodes / kg_edges) on a hand-built graph whose neighbours are known."""
from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from kgp_kedro.graphs import EDGE_COLUMNS, NODE_COLUMNS, Edges, Graph, Nodes

#   p1 ==(keyword, entity)== p2 --mentions-- e1
#   p1 <-knn-> p3 -knn-> p4 (directed)      p4 -- p4 (self-loop, dropped)
NODES = Nodes(ids=["p1", "p2", "p3", "p4", "e1"],
              kinds=["passage", "passage", "passage", "passage", "entity"],
              texts=["One.", "Two.", "Three.", "Four.", "Entity"],
              passage_ids=["p1", "p2", "p3", "p4", None],
              attributes=["{}", "{}", "{}", "{}",
                          json.dumps({"wikidata": "Q1", "aliases": ["E", "the entity"]})])
#            p1-p2 kw  p1-p2 ent  p1->p3  p3->p1  p3->p4  p2-e1     p4-p4
EDGE_LIST = [(0, 1, "keyword", False), (0, 1, "entity", False), (0, 2, "knn", True),
             (2, 0, "knn", True), (2, 3, "knn", True), (1, 4, "mentions", False),
             (3, 3, "keyword", False)]
EDGES = Edges(src=np.array([e[0] for e in EDGE_LIST]), dst=np.array([e[1] for e in EDGE_LIST]),
              weight=np.array([2.0, 1.0, 0.9, 0.9, 0.5, 1.0, 1.0]),
              evidence=["one; two", "e", "", "", "", "Entity", "four"],
              relation=[e[2] for e in EDGE_LIST], directed=[e[3] for e in EDGE_LIST],
              qualifiers=["{}", "{}", "{}", "{}", "{}", json.dumps({"doc": "d1"}), "{}"])
RELATIONS = [None, "keyword", "entity", "knn", "mentions"]
KINDS = [None, "passage", "entity"]


@pytest.fixture
def graph():
    return Graph(NODES, EDGES)


def _all_neighbours(g):
    return {(n, r, k): g.neighbors(n, relation=r, kind=k)
            for n in NODES.ids for r in RELATIONS for k in KINDS}


def test_neighbours_by_relation_and_kind(graph):
    assert graph.neighbors("p1") == ["p2", "p3"]
    assert graph.neighbors("p1", relation="keyword") == ["p2"]
    assert graph.neighbors("p1", relation="entity") == ["p2"]
    assert graph.neighbors("p1", relation="knn") == ["p3"]
    assert graph.neighbors("p1", relation="mentions") == []
    assert graph.neighbors("p2") == ["e1", "p1"]
    assert graph.neighbors("p2", kind="passage") == ["p1"]
    assert graph.neighbors("p2", kind="entity") == ["e1"]
    assert graph.neighbors("p2", relation="keyword", kind="entity") == []
    assert graph.neighbors("e1") == ["p2"] and graph.kind("e1") == "entity"


def test_directed_edges_count_forward_undirected_both_ways(graph):
    # p3 -> p4 only: p4 does not reach p3; p1 <-> p3 by two directed edges
    assert graph.neighbors("p3") == ["p1", "p4"]
    assert "p3" not in graph.neighbors("p4")
    assert "p3" in graph.neighbors("p1", relation="knn")
    # the undirected mentions edge was given as p2 -> e1 and is followed from e1 too
    assert graph.neighbors("e1", relation="mentions") == ["p2"]


def test_self_loops_are_dropped(graph):
    assert graph.neighbors("p4") == []
    assert graph.neighbors("p4", relation="keyword") == []


def test_size_and_density_by_hand(graph):
    # distinct joined pairs: {p1,p2} (two relations), {p1,p3} (mutual knn), {p3,p4}, {p2,e1}
    assert graph.n_edges() == 4
    # neighbours: p1 2, p2 2, p3 2, p4 0, e1 1 -> 7 / 5
    assert graph.avg_neighbors() == pytest.approx(7 / 5)
    # 4 of 5*4/2 = 10 pairs
    assert graph.density() == pytest.approx(4 / 10)
    assert len(graph.nodes) == 5 and len(graph.edges) == 7


def test_an_empty_or_single_node_graph():
    lone = Graph(Nodes.of_passages(["p"], ["text"]), Edges.empty())
    assert (lone.n_edges(), lone.density(), lone.avg_neighbors()) == (0, 0.0, 0.0)
    assert lone.neighbors("p") == [] and lone.kind("p") == "passage"
    nodes, edges = lone.tables("c", "default")
    assert len(nodes) == 1 and edges.empty and list(edges.columns) == EDGE_COLUMNS
    assert Graph.from_tables(nodes, edges).neighbors("p") == []


def test_tables_round_trip(graph, tmp_path):
    nodes, edges = graph.tables("c1", "n_kw=3")
    assert list(nodes.columns) == NODE_COLUMNS and list(edges.columns) == EDGE_COLUMNS
    assert (nodes["collection_id"] == "c1").all() and (edges["setting"] == "n_kw=3").all()
    assert nodes["node_id"].tolist() == NODES.ids and len(edges) == len(EDGE_LIST)
    assert list(zip(edges["src"], edges["dst"]))[:3] == [("p1", "p2"), ("p1", "p2"), ("p1", "p3")]
    back = Graph.from_tables(nodes, edges)
    assert _all_neighbours(back) == _all_neighbours(graph)
    assert back.n_edges() == graph.n_edges() and back.density() == graph.density()
    # and through parquet, as the catalog stores kg_nodes_* / kg_edges_*
    nodes.to_parquet(tmp_path / "nodes.parquet")
    edges.to_parquet(tmp_path / "edges.parquet")
    stored = Graph.from_tables(pd.read_parquet(tmp_path / "nodes.parquet"),
                               pd.read_parquet(tmp_path / "edges.parquet"))
    assert _all_neighbours(stored) == _all_neighbours(graph)
    assert stored.nodes.ids == NODES.ids and stored.nodes.kinds == NODES.kinds
    assert stored.nodes.passage_ids[:4] == NODES.passage_ids[:4]
    assert json.loads(stored.nodes.attributes[4])["wikidata"] == "Q1"
    assert json.loads(stored.edges.qualifiers[5]) == {"doc": "d1"}
    assert stored.edges.directed == EDGES.directed
    np.testing.assert_array_equal(stored.edges.weight, EDGES.weight)


def test_a_node_without_passage_keeps_passage_id_none_through_the_tables(graph):
    back = Graph.from_tables(*graph.tables("c1", "n_kw=3"))
    assert back.nodes.passage_ids == NODES.passage_ids
    assert back.to_networkx().nodes["e1"]["passage_id"] == ""


def test_to_networkx_and_graphml(graph, tmp_path):
    g = graph.to_networkx()
    assert isinstance(g, nx.MultiDiGraph) and g.number_of_nodes() == 5
    # undirected edges both ways (3 x 2), directed ones once (3); the self-loop aside
    between = [(u, v, d) for u, v, d in g.edges(data=True) if u != v]
    assert len(between) == 3 * 2 + 3
    assert g.number_of_edges("p1", "p2") == 2 and g.number_of_edges("p2", "p1") == 2
    assert g.number_of_edges("p3", "p4") == 1 and g.number_of_edges("p4", "p3") == 0
    assert {d["relation"] for _, _, d in g.edges("p1", data=True)} == {"keyword", "entity", "knn"}
    assert g.nodes["e1"]["kind"] == "entity" and g.nodes["e1"]["passage_id"] == ""
    assert g.nodes["e1"]["wikidata"] == "Q1"
    assert json.loads(g.nodes["e1"]["aliases"]) == ["E", "the entity"]  # GraphML keeps scalars
    assert g.get_edge_data("e1", "p2")[0]["doc"] == "d1"
    path = tmp_path / "graph.graphml"
    nx.write_graphml(g, path)
    read = nx.read_graphml(path)
    assert read.is_directed() and read.number_of_nodes() == 5
    assert read.number_of_edges() == g.number_of_edges()
    assert read.nodes["p3"]["text"] == "Three." and read.nodes["e1"]["kind"] == "entity"
    assert sorted(d["relation"] for _, _, d in read.edges("p1", data=True)) == \
        ["entity", "keyword", "knn"]
    assert sorted(read.successors("p3")) == ["p1", "p4"]


def test_to_networkx_drops_self_loops_like_the_graph(graph):
    g = graph.to_networkx()
    assert nx.number_of_selfloops(g) == 0
    assert g.number_of_edges() == 3 * 2 + 3
