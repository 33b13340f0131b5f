"""Figure 5 of the KGP paper: SF-EM and precision against the average number of neighbours."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from kgp_kedro.reporting.panels import colors_for, log_ticks, source_panels


def plot_kg_quality(summary: pd.DataFrame) -> go.Figure:
    """One panel per source; per KG variant a solid SF-EM line and a dashed precision line,
    both against the average neighbours per node, one point per density setting."""
    sources = list(dict.fromkeys(summary["source"]))
    fig = source_panels(sources, "KG quality: seed neighbourhood coverage of supporting "
                                 "passages (KGP Figure 5)", "SF-EM (solid) / precision (dashed)")
    variants = list(dict.fromkeys(summary["variant"]))
    colors = colors_for(variants)
    for col, source in enumerate(sources, start=1):
        for variant in variants:
            rows = summary[(summary["source"] == source) & (summary["variant"] == variant)]
            rows = rows.sort_values("avg_neighbors")
            if rows.empty:
                continue
            for metric, dash in (("sf_em", "solid"), ("precision", "dash")):
                fig.add_trace(go.Scatter(
                    x=rows["avg_neighbors"], y=rows[metric], mode="lines+markers",
                    name=f"{variant} {metric.replace('_', '-').upper()}",
                    legendgroup=f"{variant}-{metric}", showlegend=col == 1,
                    line={"color": colors[variant], "dash": dash}, text=rows["setting"],
                    hovertemplate="%{text}<br>avg neighbours %{x:.1f}<br>"
                                  f"{metric} " + "%{y:.3f}<extra>" + variant + "</extra>"),
                    row=1, col=col)
        fig.update_xaxes(title_text="average neighbours per node", type="log",
                         tickvals=log_ticks(summary["avg_neighbors"]), row=1, col=col)
    return fig
