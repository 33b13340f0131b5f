"""The paper's QA comparison tables (Table 1: methods x sources x Acc/Hits@1/EM/F1 with each
method's ratio to Golden F1, F1 and the ratio with a bootstrap interval over questions; Table 2:
traversal agents on one KG), the reader's costs, and a figure with the intervals as error bars.
Every table and the figure say how many questions each number rests on."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from kgp_kedro.evaluation.bootstrap import (DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES,
                                            percentile_interval, ratio_samples,
                                            resample_indices, resampled_means)
from kgp_kedro.evaluation.qa_scores import metric_columns
from kgp_kedro.reporting.panels import colors_for, source_panels

INTERVAL_COLUMNS = ["source", "method", "questions", "f1_low", "f1_high", "f1_vs_golden_low",
                    "f1_vs_golden_high"]


def score_intervals(scores: pd.DataFrame, golden: str = "golden", metric: str = "f1",
                    n_resamples: int = DEFAULT_RESAMPLES, confidence: float = DEFAULT_CONFIDENCE,
                    seed: int = 0) -> pd.DataFrame:
    """Per source and method, the percentile bootstrap interval of the mean ``metric`` over the
    source's questions (``<metric>_low`` / ``<metric>_high``, fractions as in the scores) and
    of its ratio to the ``golden`` method's mean (``<metric>_vs_golden_low`` / ``_high``),
    paired: each resample draws the source's questions once (sorted by id, seeded with
    ``seed``) and every method, Golden included, is averaged over the same draw. The ratio's
    interval is NaN when Golden is absent or its mean is 0 on some resample (unbounded)."""
    columns = ["source", "method", "questions", f"{metric}_low", f"{metric}_high",
               f"{metric}_vs_golden_low", f"{metric}_vs_golden_high"]
    rows = []
    for source, part in scores.groupby("source", sort=False):
        # one row per question, one column per method (NaN: a question a method lacks)
        wide = part.pivot_table(index="question_id", columns="method", values=metric,
                                aggfunc="mean", dropna=False, sort=True)
        methods = list(dict.fromkeys(part["method"]))
        wide = wide.reindex(columns=methods)
        means = resampled_means(wide.to_numpy(dtype=float),
                                resample_indices(len(wide), n_resamples, seed))
        low, high = percentile_interval(means, confidence)
        if golden in methods:
            ratios = ratio_samples(means, means[:, [methods.index(golden)]])
            ratio_low, ratio_high = percentile_interval(ratios, confidence)
        else:
            ratio_low = ratio_high = np.full(len(methods), np.nan)
        counts = part.groupby("method", sort=False)[metric].count()
        for i, method in enumerate(methods):
            rows.append([source, method, int(counts.get(method, 0)), low[i], high[i],
                         ratio_low[i], ratio_high[i]])
    return pd.DataFrame(rows, columns=columns)


def paired_differences(scores: pd.DataFrame, baseline: str, metric: str = "f1",
                       n_resamples: int = DEFAULT_RESAMPLES,
                       confidence: float = DEFAULT_CONFIDENCE, seed: int = 0) -> pd.DataFrame:
    """Per source and method, the mean ``metric`` difference to ``baseline`` over the
    questions both answered, with its paired percentile bootstrap interval (each resample
    draws the questions once for both). Empty where ``baseline`` did not run."""
    rows = []
    for source, part in scores.groupby("source", sort=False):
        wide = part.pivot_table(index="question_id", columns="method", values=metric,
                                aggfunc="mean", sort=True)
        if baseline not in wide.columns:
            continue
        for method in dict.fromkeys(part["method"]):
            if method == baseline:
                continue
            both = wide[[method, baseline]].dropna().to_numpy(dtype=float)
            if not len(both):
                continue
            diff = both[:, :1] - both[:, 1:]
            means = resampled_means(diff, resample_indices(len(diff), n_resamples, seed))
            low, high = percentile_interval(means, confidence)
            rows.append([source, method, len(diff), float(diff.mean()), low[0], high[0]])
    return pd.DataFrame(rows, columns=["source", "method", "questions", "diff", "low", "high"])


def comparison_table(summary: pd.DataFrame, methods: Sequence[str] | None = None,
                     metrics: Sequence[str] | None = None, golden: str = "golden",
                     intervals: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per method (in ``methods`` order, default: as they appear), columns
    ``<source>/<metric>`` (in percent, or as a fraction for a metric that is not a percent)
    for each Table 1 metric of the registry, in their ``rank`` order
    (:func:`~kgp_kedro.evaluation.qa_scores.metric_columns`: the judge's Acc, Hits@1, EM, F1,
    and where the source has structural questions Struct-EM and the page / table hits; or
    each of ``metrics`` when given), ``<source>/f1_low`` / ``<source>/f1_high`` (the F1
    interval of ``intervals``, from :func:`score_intervals`, in percent; NaN without it),
    ``<source>/f1_vs_golden`` (F1 / Golden F1) with ``<source>/f1_vs_golden_low`` /
    ``_high`` when the Golden row exists, ``<source>/questions`` (the questions each of the
    source's numbers rests on), and ``questions`` / ``failed`` summed over sources."""
    rows = summary if methods is None else summary[summary["method"].isin(methods)]
    order = list(methods) if methods is not None else list(dict.fromkeys(rows["method"]))
    table = pd.DataFrame(index=pd.Index(order, name="method"))
    if intervals is None:
        intervals = pd.DataFrame(columns=INTERVAL_COLUMNS)
    # (metric, optional, percent): an optional one only where the source has a value
    ranked = sorted(metric_columns("table1"), key=lambda c: (c.rank is None, c.rank or 0))
    shown = ([(c.name, c.optional, c.percent) for c in ranked]
             if metrics is None else [(m, False, True) for m in metrics])
    for source, part in rows.groupby("source", sort=False):
        part = part.set_index("method")
        bounds = intervals[intervals["source"] == source].set_index("method")
        for metric, optional, percent in shown:
            # a summary made before a metric was added lacks its column
            if metric in part.columns and (not optional or part[metric].notna().any()):
                table[f"{source}/{metric}"] = (100 if percent else 1) * part[metric].astype(float)
        table[f"{source}/f1_low"] = 100 * bounds["f1_low"].astype(float)
        table[f"{source}/f1_high"] = 100 * bounds["f1_high"].astype(float)
        gold = summary[(summary["source"] == source) & (summary["method"] == golden)]
        if len(gold) and gold["f1"].iloc[0] > 0:
            table[f"{source}/f1_vs_golden"] = part["f1"] / gold["f1"].iloc[0]
            table[f"{source}/f1_vs_golden_low"] = bounds["f1_vs_golden_low"].astype(float)
            table[f"{source}/f1_vs_golden_high"] = bounds["f1_vs_golden_high"].astype(float)
        table[f"{source}/questions"] = part["questions"]
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


def _count(n) -> int:
    return 0 if pd.isna(n) else int(n)


def _questions_label(counts: pd.Series) -> str:
    counts = sorted({int(n) for n in counts.dropna()})
    if not counts:
        return ""
    return (f"n = {counts[0]}" if len(counts) == 1 else f"n = {counts[0]}-{counts[-1]}")


def plot_qa_comparison(table: pd.DataFrame, metric: str = "f1", title: str | None = None
                       ) -> go.Figure:
    """A bar per method of ``<source>/<metric>``, one panel per source titled with the number
    of questions its bars rest on, with the bootstrap interval (``<source>/<metric>_low`` /
    ``_high``) as error bars where the table has it."""
    label = {c.name: c.label for c in metric_columns()}.get(metric, metric.upper())
    sources = [c[:-len(metric) - 1] for c in table.columns if c.endswith(f"/{metric}")]
    with_bars = any(f"{s}/{metric}_low" in table and table[f"{s}/{metric}_low"].notna().any()
                    for s in sources)
    if title is None:
        title = f"Reader {label} per retrieval method"
        if with_bars:
            title += ", 95 % bootstrap interval over questions"
    fig = source_panels(sources, title, f"{label} (%)", y_range=None)
    colors = colors_for(table["method"].tolist())
    for col, source in enumerate(sources, start=1):
        y = table[f"{source}/{metric}"].astype(float)
        counts = (table[f"{source}/questions"] if f"{source}/questions" in table
                  else table["questions"])
        n = _questions_label(counts)
        if n and col <= len(fig.layout.annotations):
            fig.layout.annotations[col - 1].text += f" ({n} questions)"
        error = None
        low = table.get(f"{source}/{metric}_low")
        high = table.get(f"{source}/{metric}_high")
        if low is not None and high is not None and low.notna().any():
            error = {"type": "data", "symmetric": False, "array": (high - y).tolist(),
                     "arrayminus": (y - low).tolist(), "thickness": 1.2, "width": 4}
            hover = [f"{m}: {v:.1f} [{lo:.1f}, {hi:.1f}], {_count(q)} questions"
                     for m, v, lo, hi, q in zip(table["method"], y, low, high, counts)]
        else:
            hover = [f"{m}: {v:.1f}, {_count(q)} questions"
                     for m, v, q in zip(table["method"], y, counts)]
        fig.add_trace(go.Bar(x=table["method"], y=y, name=f"{source}/{metric}",
                             showlegend=False, error_y=error, hovertext=hover,
                             hoverinfo="text",
                             marker={"color": [colors[m] for m in table["method"]]}),
                      row=1, col=col)
    # every method named under its bar, however many (plotly would skip every other one)
    fig.update_xaxes(dtick=1, tickangle=-90, tickfont={"size": 10})
    return fig
