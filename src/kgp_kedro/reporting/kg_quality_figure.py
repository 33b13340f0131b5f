"""Figure 5 of the KGP paper: SF-EM and precision against the average number of neighbours."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots


def plot_kg_quality(summary: pd.DataFrame) -> go.Figure:
    """One panel per source; per KG variant a solid SF-EM line and a dashed precision line,
    both against the average neighbours per node, one point per density setting."""
    sources = list(dict.fromkeys(summary["source"]))
    fig = make_subplots(rows=1, cols=max(len(sources), 1), subplot_titles=sources,
                        shared_yaxes=True)
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
    variants = list(dict.fromkeys(summary["variant"]))
    for col, source in enumerate(sources, start=1):
        for v, variant in enumerate(variants):
            rows = summary[(summary["source"] == source) & (summary["variant"] == variant)]
            rows = rows.sort_values("avg_neighbors")
            if rows.empty:
                continue
            color = palette[v % len(palette)]
            for metric, dash in (("sf_em", "solid"), ("precision", "dash")):
                fig.add_trace(go.Scatter(
                    x=rows["avg_neighbors"], y=rows[metric], mode="lines+markers",
                    name=f"{variant} {metric.replace('_', '-').upper()}",
                    legendgroup=f"{variant}-{metric}", showlegend=col == 1,
                    line={"color": color, "dash": dash}, text=rows["setting"],
                    hovertemplate="%{text}<br>avg neighbours %{x:.1f}<br>"
                                  f"{metric} " + "%{y:.3f}<extra>" + variant + "</extra>"),
                    row=1, col=col)
        fig.update_xaxes(title_text="average neighbours per node", type="log", row=1, col=col)
    fig.update_yaxes(title_text="SF-EM (solid) / precision (dashed)", range=[0, 1.02], row=1,
                     col=1)
    fig.update_layout(title="KG quality: seed neighbourhood coverage of supporting passages "
                            "(KGP Figure 5)", height=450, width=420 * max(len(sources), 1) + 200,
                      template="plotly_white")
    return fig
