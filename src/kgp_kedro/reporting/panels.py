"""One panel per source, one line per method: the layout of the paper's retrieval figures."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots


def plot_lines_by_source(frame: pd.DataFrame, x: str, y: str, title: str, x_title: str,
                         y_title: str, group: str = "method", log_x: bool = False) -> go.Figure:
    """``y`` against ``x`` for every ``group`` value, a panel per ``source``."""
    sources = list(dict.fromkeys(frame["source"]))
    fig = make_subplots(rows=1, cols=max(len(sources), 1), subplot_titles=sources,
                        shared_yaxes=True)
    for col, source in enumerate(sources, start=1):
        for name, rows in frame[frame["source"] == source].groupby(group, sort=False):
            rows = rows.sort_values(x)
            fig.add_trace(go.Scatter(x=rows[x], y=rows[y], mode="lines+markers", name=str(name),
                                     legendgroup=str(name), showlegend=col == 1), row=1, col=col)
        fig.update_xaxes(title_text=x_title, type="log" if log_x else None, row=1, col=col)
    fig.update_yaxes(title_text=y_title, range=[0, 1.02], row=1, col=1)
    fig.update_layout(title=title, template="plotly_white", height=450,
                      width=420 * max(len(sources), 1) + 200)
    return fig
