"""Figures that read at a glance: the recall heatmap's rows, marks and rules, the traversal
view's zoom and labels, every figure within the notebook width (hand-made tiny inputs whose
expected drawing can be followed by hand)."""
from __future__ import annotations

import pandas as pd
import pytest

from kgp_kedro.reporting import plot_kg_quality
from kgp_kedro.reporting.notebook import traversal_figure
from kgp_kedro.reporting.panels import FIGURE_WIDTH, plot_lines_by_source
from kgp_kedro.reporting.recall_table import plot_recall_heatmap

RECALL = {  # method -> recall at k = 2, 5, 30 on one source
    "kgp_tfidf": (0.50, 0.60, 0.80), "golden": (1.0, 1.0, 1.0), "bm25": (0.40, 0.70, 0.90),
    "none": (0.0, 0.0, 0.0), "kgp_encoder": (0.55, 0.65, 0.85), "dpr": (0.45, 0.70, 0.95)}


def _summary(scopes=("per_question",), ks=(1, 2, 5, 30)) -> pd.DataFrame:
    rows = [{"source": "hotpotqa", "scope": scope, "method": m, "unit": "passage", "k": k,
             "recall": dict(zip((2, 5, 30), values)).get(k, 0.1)}
            for scope in scopes for m, values in RECALL.items() for k in ks]
    return pd.DataFrame(rows)


def test_recall_heatmap_groups_bounds_baselines_and_kgp_and_stars_the_best():
    fig = plot_recall_heatmap(_summary())
    heat = fig.data[0]
    assert list(heat.y) == ["golden", "none", "bm25", "dpr", "kgp_tfidf", "kgp_encoder"]
    assert [list(level) for level in heat.x] == [["HotpotQA"] * 3, ["@2", "@5", "@30"]]
    assert list(heat.z[0]) == [1.0, 1.0, 1.0]                    # golden, not a competitor
    text = {m: list(t) for m, t in zip(heat.y, heat.text)}
    assert text["golden"] == ["1.00", "1.00", "1.00"]      # never starred
    assert text["kgp_encoder"][0] == "<b>0.55★</b>"         # best @2 among the others
    assert text["bm25"][1] == text["dpr"][1] == "<b>0.70★</b>"   # a tie: both
    assert text["dpr"][2] == "<b>0.95★</b>" and text["bm25"][2] == "0.90"
    rules = sorted(shape.y0 for shape in fig.layout.shapes)
    assert rules == [1.5, 3.5]                               # under the bounds, under the baselines
    assert fig.layout.width <= FIGURE_WIDTH


def test_recall_heatmap_has_a_panel_per_scope_and_falls_back_to_the_ks_it_has():
    fig = plot_recall_heatmap(_summary(("per_question", "pooled"), ks=(1, 10)))
    assert len(fig.data) == 2
    assert [a.text for a in fig.layout.annotations] == ["per-question collections",
                                                       "pooled collection"]
    assert list(fig.data[1].x[1]) == ["@1", "@10"]
    with pytest.raises(ValueError):
        plot_recall_heatmap(_summary().iloc[0:0])


def _tiny_graph():
    """p0 - p1 - p2 - p3 - p4 - p5 (a chain) and p6 - p7 apart; supporting: p2 and p6."""
    ids = [f"p{i}" for i in range(8)]
    nodes = pd.DataFrame({"collection_id": "c", "node_id": ids, "kind": "passage",
                          "text": [f"text {i}" for i in range(8)], "passage_id": ids,
                          "attributes": "{}"})
    pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (6, 7)]
    edges = pd.DataFrame({"collection_id": "c", "setting": "k=1",
                          "src": [f"p{a}" for a, _ in pairs], "dst": [f"p{b}" for _, b in pairs],
                          "relation": "knn", "qualifiers": "{}", "weight": 1.0, "evidence": "",
                          "directed": False})
    passages = pd.DataFrame({"collection_id": "c", "passage_id": ids,
                             "title": [f"Doc {i}" for i in range(8)],
                             "is_supporting": [i in (2, 6) for i in range(8)]})
    retrieved = pd.DataFrame({"question_id": "q", "collection_id": "c", "rank": [0, 1],
                              "passage_id": ["p1", "p2"], "path": ["p0 > p1", "p1 > p2"]})
    return nodes, edges, passages, retrieved


def test_traversal_view_draws_the_paths_the_supporting_passages_and_their_neighbours_only():
    fig = traversal_figure(*_tiny_graph(), "q", "k=1")
    drawn = {t.name: {h.split("<br>")[0] for h in t.hovertext or ()}
             for t in fig.data if t.mode == "markers+text"}
    # paths p0 > p1, p1 > p2; supporting p2, p6; within 1 hop: p3 (of p2), p7 (of p6)
    assert drawn["seed (hop 0)"] == {"p0", "p1"}            # p1 starts the second path
    assert drawn["neighbour (hop 1)"] == {"p2"}
    assert drawn["neighbour within 1 hop (not visited)"] == {"p3", "p6", "p7"}
    labels = {text for t in fig.data if t.mode == "markers+text" for text in t.text if text}
    assert labels == {"Doc 2 (hop 1)", "Doc 6 (not reached)"}
    assert "drawn: 6 of the collection's 8 passages" in fig.layout.title.text
    assert "reached: 1 of 2" in fig.layout.title.text
    wider = traversal_figure(*_tiny_graph(), "q", "k=1", context=2)
    assert "drawn: 7 of" in wider.layout.title.text          # p4 joins
    assert fig.layout.width <= FIGURE_WIDTH


def test_panel_figures_fit_the_notebook_and_the_menu_sits_apart_from_the_titles():
    lines = pd.DataFrame({"source": ["hotpotqa", "musique", "2wikimultihopqa"] * 2,
                          "method": ["bm25"] * 3 + ["dpr"] * 3, "k": [1] * 6,
                          "recall": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})
    assert plot_lines_by_source(lines, "k", "recall", "t", "k", "recall").layout.width \
        <= FIGURE_WIDTH
    summary = pd.DataFrame({"source": "hotpotqa", "variant": "tfidf", "setting": ["n_kw=1", "n_kw=5"],
                            "avg_neighbors": [2.0, 6.0], "neighbour_ratio": [0.1, 0.3],
                            "sf_em": [0.5, 0.8], "precision": [0.2, 0.1]})
    fig = plot_kg_quality(summary)
    menu = fig.layout.updatemenus[0]
    # buttons (no list that opens over a title), anchored above the panels' top edge
    assert menu.type == "buttons" and menu.yanchor == "bottom" and menu.y == 1.0
    assert menu.pad.b > 0 and fig.layout.width <= FIGURE_WIDTH
