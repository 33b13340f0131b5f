"""The layout every figure shares: one panel per source, one colour per method or KG variant
(the same colour in every panel and every figure)."""
from __future__ import annotations

import zlib
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
           "#7b4173", "#3182bd")
# the project's own method and KG variant names keep fixed colours; any other name gets one by
# a stable hash of its text
FIXED = {name: PALETTE[i] for i, name in enumerate((
    "tfidf", "bm25", "knn", "dpr", "mdr", "kgp_tfidf", "kgp_random", "kgp_encoder", "kgp_t5",
    "kgp_chat", "ircot", "none", "golden", "knn_st", "tagme", "pooled"))}
# every figure fits a notebook's output area (no horizontal scrollbar in JupyterLab, nbconvert's
# HTML or the docs); its panels share that width
FIGURE_WIDTH = 880
SOURCE_TITLES = {"hotpotqa": "HotpotQA", "musique": "MuSiQue", "2wikimultihopqa": "2WikiMultihopQA",
                 "documents": "Documents"}


def colors_for(names: Sequence[str]) -> dict[str, str]:
    """A colour per name: fixed ones first, the others by hash, never two alike in one figure
    while the palette lasts."""
    colors: dict[str, str] = {}
    taken: set[str] = set()
    for name in dict.fromkeys(names):
        base = FIXED.get(name.split(" (")[0].split("@")[0])
        if base is None or base in taken:
            start = zlib.crc32(name.encode("utf-8")) % len(PALETTE)
            free = [PALETTE[(start + i) % len(PALETTE)] for i in range(len(PALETTE))]
            base = next((c for c in free if c not in taken), free[0])
        colors[name] = base
        taken.add(base)
    return colors


def source_title(source: str) -> str:
    return SOURCE_TITLES.get(source, source)


def source_panels(sources: Sequence[str], title: str, y_title: str,
                  y_range: tuple[float, float] | None = (0, 1.02)) -> go.Figure:
    """An empty figure with one panel per source (shared y axis)."""
    fig = make_subplots(rows=1, cols=max(len(sources), 1),
                        subplot_titles=[source_title(s) for s in sources], shared_yaxes=True)
    fig.update_yaxes(title_text=y_title, range=list(y_range) if y_range else None, row=1, col=1)
    fig.update_layout(title=title, template="plotly_white", height=480, width=FIGURE_WIDTH,
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "y": -0.22,
                              "yanchor": "top"},
                      margin={"l": 60, "r": 20, "b": 40})
    return fig


def log_ticks(values: pd.Series) -> list[float]:
    """Readable ticks for a log axis: 1-2-5 steps inside the data's range."""
    low, high = float(values.min()), float(values.max())
    ticks = [m * 10 ** e for e in range(-2, 6) for m in (1, 2, 5)]
    return [t for t in ticks if low / 1.5 <= t <= high * 1.5] or [low, high]


def plot_lines_by_source(frame: pd.DataFrame, x: str, y: str, title: str, x_title: str,
                         y_title: str, group: str = "method") -> go.Figure:
    """``y`` against ``x`` for every ``group`` value, a panel per ``source``."""
    sources = list(dict.fromkeys(frame["source"]))
    fig = source_panels(sources, title, y_title)
    colors = colors_for([str(g) for g in frame[group]])
    for col, source in enumerate(sources, start=1):
        for name, rows in frame[frame["source"] == source].groupby(group, sort=False):
            rows = rows.sort_values(x)
            fig.add_trace(go.Scatter(x=rows[x], y=rows[y], mode="lines+markers", name=str(name),
                                     legendgroup=str(name), showlegend=col == 1,
                                     line={"color": colors[str(name)]},
                                     marker={"color": colors[str(name)]}), row=1, col=col)
        fig.update_xaxes(title_text=x_title, row=1, col=col)
    return fig
