"""Many methods' recall at a few k, readable at a glance: a heatmap with a column per source
and k, a row per method, the value in each cell, the best of each column marked, and the KGP
rows set apart from the baselines and the bounds (None, Golden) set apart from both (a panel
per scope: per-question collections, pooled)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kgp_kedro.reporting.panels import FIGURE_WIDTH, source_title

SCOPE_TITLES = {"per_question": "per-question collections", "pooled": "pooled collection"}
BOUNDS = ("none", "golden")   # no context and the supporting passages: not competitors
GAP_PX = 85                   # between two scopes' panels: the x labels and the next title
ROW_PX = 26


def is_kgp(method: str) -> bool:
    """The project's KGP methods are named ``kgp_<agent>``."""
    return method.startswith("kgp")


def plot_recall_heatmap(summary: pd.DataFrame, ks: Sequence[int] = (2, 5, 30),
                        metric: str = "recall", title: str = "Supporting-passage recall@k",
                        kgp: Callable[[str], bool] = is_kgp) -> go.Figure:
    """``metric`` of ``retrieval_summary`` rows (one unit) at ``ks`` (those it has; all its k
    when it has none of them): a heatmap per scope, columns source × k, rows the methods: the
    bounds (None, Golden), the baselines, the KGP methods (``kgp(name)``), each group between
    rules; the best value of each column among the non-bounds in bold with a star."""
    if summary.empty:
        raise ValueError("retrieval_summary is empty: no method was scored")
    have = sorted(set(summary["k"]))
    shown = [k for k in ks if k in have] or have
    frame = summary[summary["k"].isin(shown)]
    scopes = list(dict.fromkeys(frame["scope"]))
    sources = list(dict.fromkeys(frame["source"]))
    columns = [(s, k) for s in sources for k in shown]
    x = [[source_title(s) for s, _ in columns], [f"@{k}" for _, k in columns]]
    rows_per_scope = []
    for scope in scopes:
        methods = list(dict.fromkeys(frame.loc[frame["scope"] == scope, "method"]))
        groups = ([m for m in methods if m in BOUNDS],
                  [m for m in methods if m not in BOUNDS and not kgp(m)],
                  [m for m in methods if m not in BOUNDS and kgp(m)])
        rows_per_scope.append(groups)
    heights = [max(sum(map(len, g)), 1) for g in rows_per_scope]
    plot_px = ROW_PX * sum(heights) + GAP_PX * (len(scopes) - 1)
    fig = make_subplots(rows=len(scopes), cols=1, row_heights=heights,
                        vertical_spacing=GAP_PX / plot_px if len(scopes) > 1 else 0.0,
                        subplot_titles=[SCOPE_TITLES.get(s, s) for s in scopes])
    for row, (scope, groups) in enumerate(zip(scopes, rows_per_scope), start=1):
        methods = [m for group in groups for m in group]
        cells = (frame[frame["scope"] == scope]
                 .set_index(["method", "source", "k"])[metric])
        z = [[cells.get((m, s, k)) for s, k in columns] for m in methods]
        z = [[None if pd.isna(v) else float(v) for v in line] for line in z]
        competing = [line for m, line in zip(methods, z) if m not in BOUNDS]
        best = [max((line[j] for line in competing if line[j] is not None), default=None)
                for j in range(len(columns))]
        text = [["" if v is None else (f"<b>{v:.2f}★</b>" if m not in BOUNDS and v == best[j]
                                       else f"{v:.2f}")
                 for j, v in enumerate(line)] for m, line in zip(methods, z)]
        fig.add_trace(go.Heatmap(
            z=z, x=x, y=methods, text=text, texttemplate="%{text}", textfont={"size": 11},
            zmin=0, zmax=1, colorscale="Blues", showscale=row == 1, xgap=2, ygap=2,
            colorbar={"title": {"text": metric}, "len": 0.6, "thickness": 12},
            hovertemplate="%{y}<br>%{x}<br>" + metric + " %{z:.3f}<extra></extra>"),
            row=row, col=1)
        ends = [len(groups[0]), len(groups[0]) + len(groups[1])]
        for end in sorted(set(ends)):
            if 0 < end < len(methods):
                fig.add_hline(y=end - 0.5, line={"color": "#222", "width": 2}, row=row, col=1)
        fig.update_yaxes(autorange="reversed", row=row, col=1)
    fig.update_layout(title={"text": f"{title}: None / Golden (bounds), baselines, KGP, "
                                     "between rules; ★ best of the column", "font": {"size": 14}},
                      template="plotly_white", width=FIGURE_WIDTH, height=plot_px + 160,
                      margin={"t": 100, "l": 110, "r": 40, "b": 60})
    return fig
