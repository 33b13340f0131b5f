"""The paper's QA comparison tables (Table 1: methods x sources x Acc/EM/F1 with each method's
ratio to Golden F1; Table 2: traversal agents on one KG), the reader's costs, and a figure."""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from kgp_kedro.reporting.panels import colors_for, source_panels

TABLE_METRICS = ("acc", "em", "f1")


def comparison_table(summary: pd.DataFrame, methods: Sequence[str] | None = None,
                     metrics: Sequence[str] = TABLE_METRICS, golden: str = "golden") -> pd.DataFrame:
    """One row per method (in ``methods`` order, default: as they appear), columns
    ``<source>/<metric>`` in percent, ``<source>/f1_vs_golden`` (F1 / Golden F1) when the
    Golden row exists, and ``questions`` / ``failed`` summed over sources."""
    rows = summary if methods is None else summary[summary["method"].isin(methods)]
    order = list(methods) if methods is not None else list(dict.fromkeys(rows["method"]))
    table = pd.DataFrame(index=pd.Index(order, name="method"))
    for source, part in rows.groupby("source", sort=False):
        part = part.set_index("method")
        for metric in metrics:
            table[f"{source}/{metric}"] = 100 * part[metric]
        gold = summary[(summary["source"] == source) & (summary["method"] == golden)]
        if len(gold) and gold["f1"].iloc[0] > 0:
            table[f"{source}/f1_vs_golden"] = part["f1"] / gold["f1"].iloc[0]
    totals = rows.groupby("method")[["questions", "failed"]].sum()
    table["questions"], table["failed"] = totals["questions"], totals["failed"]
    return table.reset_index()


def reader_costs(summary: pd.DataFrame, retrieval_calls: pd.DataFrame) -> pd.DataFrame:
    """Per source and method: reader prompt/completion tokens and latency per question,
    retrieval model calls and LLM calls per question (the reader's one call plus the
    retriever's LLM calls for IRCoT and the chat agent)."""
    costs = summary[["source", "method", "questions", "prompt_tokens", "completion_tokens",
                     "reader_latency_ms", "n_contexts"]].merge(
        retrieval_calls, on=["source", "method"], how="left")
    costs["llm_calls"] = 1 + costs["retrieval_llm_calls"].fillna(0)
    return costs


def plot_qa_comparison(table: pd.DataFrame, metric: str = "f1",
                       title: str = "Reader F1 per retrieval method") -> go.Figure:
    """A bar per method of ``<source>/<metric>``, one panel per source."""
    columns = [c for c in table.columns if c.endswith(f"/{metric}")]
    questions = f" ({int(table['questions'].max())} questions a method)" if len(table) else ""
    fig = source_panels([c.split("/")[0] for c in columns], title + questions,
                        f"{metric.upper()} (%)", y_range=None)
    colors = colors_for(table["method"].tolist())
    for col, column in enumerate(columns, start=1):
        fig.add_trace(go.Bar(x=table["method"], y=table[column], name=column, showlegend=False,
                             marker={"color": [colors[m] for m in table["method"]]}),
                      row=1, col=col)
    return fig
