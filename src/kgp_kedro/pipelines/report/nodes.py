"""Nodes of the report pipeline."""
from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from kgp_kedro.reporting.qa_tables import comparison_table, plot_qa_comparison, reader_costs
from kgp_kedro.config import validate
from kgp_kedro.config.project import parse_method
from kgp_kedro.config.sections import ReportParams


def tabulate_qa(qa_summary: pd.DataFrame, report: dict[str, Any]
                ) -> tuple[pd.DataFrame, pd.DataFrame, go.Figure, go.Figure]:
    """Table 1 (every method, or ``report.table1_methods``), Table 2 (the traversal agents of
    ``report.table2_methods`` that ran) and the F1 figure of Table 1 (as HTML and JSON)."""
    params = validate(ReportParams, report, "report")
    present = set(qa_summary["method"])
    table1 = comparison_table(qa_summary, [m for m in params.table1_methods or
                                           dict.fromkeys(qa_summary["method"]) if m in present])
    table2 = comparison_table(qa_summary, [m for m in params.table2_methods if m in present])
    figure = plot_qa_comparison(table1, params.figure_metric)
    return table1, table2, figure, figure


def tabulate_costs(qa_summary: pd.DataFrame, qa_questions: pd.DataFrame,
                   methods: dict[str, Any], *retrieved: pd.DataFrame) -> pd.DataFrame:
    """Reader tokens, latency and LLM calls per question, per source and method, over the QA
    questions."""
    calls_llm = {name: parse_method(name, spec, f"retrieve.methods.{name}").requirements.llm
                 for name, spec in methods.items()}
    rows = []
    for table in retrieved:
        if table.empty:
            continue
        method = table["method"].iloc[0]
        asked = table[table["question_id"].isin(qa_questions["question_id"])]
        per_question = asked.drop_duplicates("question_id")
        for source, part in per_question.groupby("source", sort=False):
            calls = part["calls"].mean()
            rows.append({"source": source, "method": method, "retrieval_calls": calls,
                         "retrieval_latency_ms": part["latency_ms"].mean(),
                         "retrieval_llm_calls": calls if calls_llm[method] else 0.0})
    return reader_costs(qa_summary, pd.DataFrame(
        rows, columns=["source", "method", "retrieval_calls", "retrieval_latency_ms",
                       "retrieval_llm_calls"]))
