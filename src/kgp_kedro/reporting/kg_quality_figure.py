"""Figure 5 of the KGP paper: SF-EM and precision against the average number of neighbours,
or against the neighbour ratio (|C1| / collection passages)."""
from __future__ import annotations

from typing import Literal

import pandas as pd
import plotly.graph_objects as go

from kgp_kedro.reporting.panels import colors_for, log_ticks, source_panels

X_AXES = {"avg_neighbors": "average neighbours per node",
          "neighbour_ratio": "neighbour ratio |C1| / collection passages"}


def plot_kg_quality(summary: pd.DataFrame,
                    x: Literal["avg_neighbors", "neighbour_ratio"] = "avg_neighbors") -> go.Figure:
    """One panel per source; per KG variant a solid SF-EM line and a dashed precision line,
    both against ``x`` (the paper's average neighbours per node by default), one point per
    density setting. When the summary has both x columns, two buttons above the panels switch
    the x axis between them (the average neighbours does not compare across collection sizes,
    the neighbour ratio does)."""
    if x not in X_AXES:
        raise ValueError(f"x must be one of {', '.join(X_AXES)}, got {x!r}")
    sources = list(dict.fromkeys(summary["source"]))
    fig = source_panels(sources, "KG quality: seed neighbourhood coverage of supporting "
                                 "passages (KGP Figure 5)", "SF-EM (solid) / precision (dashed)")
    variants = list(dict.fromkeys(summary["variant"]))
    colors = colors_for(variants)
    views = [v for v in X_AXES if v in summary.columns]
    xs: dict[str, list[list[float]]] = {v: [] for v in views}
    for col, source in enumerate(sources, start=1):
        for variant in variants:
            rows = summary[(summary["source"] == source) & (summary["variant"] == variant)]
            rows = rows.sort_values("avg_neighbors")
            if rows.empty:
                continue
            for metric, dash in (("sf_em", "solid"), ("precision", "dash")):
                for view in views:
                    xs[view].append(rows[view].tolist())
                fig.add_trace(go.Scatter(
                    x=rows[x], y=rows[metric], mode="lines+markers",
                    name=f"{variant} {metric.replace('_', '-').upper()}",
                    legendgroup=f"{variant}-{metric}", showlegend=col == 1,
                    line={"color": colors[variant], "dash": dash}, text=rows["setting"],
                    hovertemplate="%{text}<br>x %{x:.3g}<br>"
                                  f"{metric} " + "%{y:.3f}<extra>" + variant + "</extra>"),
                    row=1, col=col)
        fig.update_xaxes(title_text=X_AXES[x], type="log", tickvals=log_ticks(summary[x]),
                         row=1, col=col)
    if len(views) > 1:
        axes = [f"xaxis{'' if i == 1 else i}" for i in range(1, len(sources) + 1)]
        buttons = []
        for view in views:
            layout = {}
            for axis in axes:
                layout[f"{axis}.title.text"] = X_AXES[view]
                layout[f"{axis}.tickvals"] = log_ticks(summary[view])
            buttons.append({"label": f"x: {X_AXES[view]}", "method": "update",
                            "args": [{"x": xs[view]}, layout]})
        # two buttons in a row of their own, between the figure's title and the panels' titles
        # (28 px above the panels): no list opens over a title, nothing overlaps
        fig.update_layout(updatemenus=[{
            "type": "buttons", "buttons": buttons, "active": views.index(x),
            "direction": "right", "x": 0.0, "xanchor": "left", "y": 1.0, "yanchor": "bottom",
            "pad": {"b": 28}, "showactive": True}],
            margin={"t": 140})
    return fig
