"""What the notebooks share: load a run's outputs or say which command makes them (no
traceback), plotly output that renders in exported HTML too, and one question's traversal
drawn over its graph (the paper's Figure 4/8 view)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from kgp_kedro.graphs.build import GraphTables
from kgp_kedro.graphs.edge_table import EdgeTable
from kgp_kedro.reporting.panels import FIGURE_WIDTH, colors_for

# JupyterLab draws the mimetype; nbconvert HTML, GitHub and VS Code draw the HTML output, which
# carries plotly.js itself (no CDN: it renders offline)
PLOTLY_RENDERER = "plotly_mimetype+notebook"


class NotYetRun(Exception):
    """A notebook's data has not been produced: IPython shows the message alone, no traceback,
    and a "run all" stops here."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def prepare_notebook() -> None:
    """After ``%load_ext kedro.ipython``: plotly output that renders in exported HTML too, the
    catalog's load messages off (warnings stay), and IPython's own error display (Kedro's rich
    logging replaces it with one that prints every exception as a traceback, so a
    :class:`NotYetRun` would show one)."""
    import logging

    import plotly.io as pio
    from IPython import get_ipython

    pio.renderers.default = PLOTLY_RENDERER
    logging.getLogger("kedro").setLevel(logging.WARNING)
    shell = get_ipython()
    if shell is not None:
        for patched in ("showtraceback", "_showtraceback", "showsyntaxerror"):
            shell.__dict__.pop(patched, None)


def load_outputs(catalog, names: Sequence[str], command: str, context=None,
                 run: str | None = None) -> dict[str, Any]:
    """``{name: its newest version}`` of each catalog dataset (``run``: the version a complete
    run of ``data/.runs/complete.jsonl`` saved, for every versioned dataset: the notebook
    pinned to that run); raises :class:`NotYetRun` naming ``command`` when one has never been
    saved. With the notebook's ``context`` it prints the run(s) the loads come from
    (:func:`describe_runs`)."""
    from kedro.io import DatasetError
    from kedro.io.core import AbstractVersionedDataset

    loaded, missing, versions = {}, [], {}
    for name in names:
        dataset = catalog.get(name)
        versioned = isinstance(dataset, AbstractVersionedDataset)
        try:
            loaded[name] = catalog.load(name, version=run) if run and versioned \
                else catalog.load(name)
        except DatasetError:
            missing.append(name)
            continue
        if versioned:
            versions[name] = run or dataset.resolve_load_version()
    if missing:
        saved = f"Run {run} did not save" if run else "No run has saved"
        raise NotYetRun(f"{saved} {', '.join(missing)}{'' if run else ' yet'}. Run "
                        f"`{command}` in the project folder, then run this notebook again.")
    if context is not None:
        print(describe_runs(context.project_path, versions))
    return loaded


def describe_runs(project_path, versions: dict[str, str]) -> str:
    """One line per run the ``{dataset: version}`` loads come from, with its env, pipelines,
    finish time and commit from the run manifest (a version the manifest does not hold: said
    so); pin a notebook to one with ``RUN = "<version>"``."""
    from kgp_kedro.runs.integrity import complete_runs

    records = {run["version"]: run for run in complete_runs(project_path)}
    by_version: dict[str, list[str]] = {}
    for name, version in versions.items():
        by_version.setdefault(version, []).append(name)
    lines = []
    for version, shown in sorted(by_version.items()):
        run = records.get(version)
        where = (f"env {run.get('env') or 'local'}, pipelines "
                 f"{run.get('pipelines') or ['__default__']}, finished "
                 f"{run.get('finished')}, commit {(run.get('git_commit') or '?')[:10]}"
                 if run else "not in data/.runs/complete.jsonl")
        lines.append(f"Showing run {version} ({where}): {', '.join(shown)}")
    return "\n".join(lines)


def setting_order(settings: pd.Series) -> pd.Series:
    """A sort key for ``setting`` labels such as ``k=10`` (numeric, not text: 1, 2, 10)."""
    value = settings.astype(str).str.rsplit("=", n=1).str[-1]
    return pd.to_numeric(value, errors="coerce").fillna(float("inf"))


def traversal_figure(nodes: pd.DataFrame, edges: pd.DataFrame | EdgeTable,
                     passages: pd.DataFrame, retrieved: pd.DataFrame, question_id: str, setting: str,
                     seed: int = 0, context: int = 1) -> go.Figure:
    """One question's retrieved reasoning paths drawn over its collection's graph (``kg_nodes_*``
    / ``kg_edges_*`` at ``setting``), zoomed on them: the paths' passages, the supporting
    passages and the passages within ``context`` hops of either (the rest of the collection is
    counted in the title, not drawn). Seeds (hop 0) and the neighbours reached from them
    (hop 1) by colour, path steps as thick edges, supporting passages outlined and labelled with
    their document's title and hop; a spring layout (networkx) of the drawn part."""
    import networkx as nx

    rows = retrieved[retrieved["question_id"] == question_id]
    if rows.empty:
        raise ValueError(f"question {question_id!r} has no retrieved rows")
    collection = rows["collection_id"].iloc[0]
    graph = GraphTables(nodes[nodes["collection_id"] == collection], edges).graph(collection,
                                                                                 setting)
    whole = nx.Graph(graph.to_networkx())
    in_collection = passages[passages["collection_id"] == collection]
    supporting = set(in_collection.loc[in_collection["is_supporting"], "passage_id"]) & set(whole)
    titles = dict(zip(in_collection["passage_id"], in_collection["title"]))
    steps = [p.split(" > ") for p in rows["path"]]
    hop_of: dict[str, int] = {}
    for path in steps:
        for hop, node in enumerate(path):
            hop_of[node] = min(hop, hop_of.get(node, hop))
    focus = (set(hop_of) | supporting) & set(whole)
    shown = set(focus)
    for node in focus:
        shown |= set(nx.single_source_shortest_path_length(whole, node, cutoff=context))
    g = whole.subgraph(shown)
    position = nx.spring_layout(g, seed=seed)
    path_edges = {tuple(sorted(pair)) for path in steps for pair in zip(path, path[1:])}

    def segments(pairs) -> tuple[list, list]:
        xs, ys = [], []
        for u, v in pairs:
            xs += [position[u][0], position[v][0], None]
            ys += [position[u][1], position[v][1], None]
        return xs, ys

    fig = go.Figure()
    xs, ys = segments(g.edges())
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name="graph edge", hoverinfo="skip",
                             line={"color": "rgba(150,150,150,0.35)", "width": 0.7}))
    xs, ys = segments([e for e in path_edges if g.has_edge(*e)])
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name="reasoning path step",
                             hoverinfo="skip", line={"color": "#444", "width": 2.5}))
    groups = {f"neighbour within {context} hop{'s' if context > 1 else ''} (not visited)":
              [n for n in g if n not in hop_of],
              "seed (hop 0)": [n for n in g if hop_of.get(n) == 0],
              "neighbour (hop 1)": [n for n in g if hop_of.get(n, 0) >= 1]}
    colors = colors_for(["seed (hop 0)", "neighbour (hop 1)"])

    def label(node: str) -> str:
        if node not in supporting:
            return ""
        hop = hop_of.get(node)
        reached = f"hop {hop}" if hop is not None else "not reached"
        return f"{str(titles.get(node, node))[:24]} ({reached})"

    for name, members in groups.items():
        fig.add_trace(go.Scatter(
            x=[position[n][0] for n in members], y=[position[n][1] for n in members],
            mode="markers+text", name=name, text=[label(n) for n in members],
            textposition="top center", textfont={"size": 10},
            hovertext=[f"{n}<br>{str(g.nodes[n].get('text', ''))[:120]}" for n in members],
            hoverinfo="text",
            marker={"size": [12 if n in hop_of else 7 for n in members],
                    "color": colors.get(name, "rgba(170,170,170,0.7)"),
                    "line": {"width": [3 if n in supporting else 0 for n in members],
                             "color": "black"}}))
    def padded(axis: int) -> list[float]:   # room for the labels at the edges
        values = [xy[axis] for xy in position.values()]
        low, high = min(values), max(values)
        pad = 0.2 * (high - low or 1.0)
        return [low - pad, high + pad]

    found = len(supporting & set(hop_of))
    question = rows["question"].iloc[0] if "question" in rows else question_id
    fig.update_layout(
        title={"text": f"{question}<br><sup>{len(steps)} paths ({setting}); drawn: "
                       f"{g.number_of_nodes()} of the collection's {whole.number_of_nodes()} "
                       f"passages; supporting passages (outlined, labelled) reached: {found} of "
                       f"{len(supporting)}</sup>", "font": {"size": 14}},
        xaxis={"visible": False, "range": padded(0)}, yaxis={"visible": False, "range": padded(1)},
        height=620, width=FIGURE_WIDTH,
        template="plotly_white",
        legend={"orientation": "h", "x": 0, "y": -0.02, "yanchor": "top"})
    return fig
