"""Nodes of the report pipeline."""
from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from kgp_kedro.reporting.qa_tables import (comparison_table, plot_qa_comparison, reader_costs,
                                           score_intervals)
from kgp_kedro.config import validate
from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.config.sections import LLMParams, ReportParams
from kgp_kedro.ewek.recorded import FILENAME as COMPOSED_FILENAME, record_composed
from kgp_kedro.holmes.recorded import FILENAME as READ_FACTS_FILENAME, record_read_facts
from kgp_kedro.reporting.results import ANSWER_BLOCKS, record_answers
from kgp_kedro.retrievers.recorded import FILENAME, record, recorded_rows
from kgp_kedro.runs.integrity import git_commit

logger = logging.getLogger(__name__)


def tabulate_qa(qa_summary: pd.DataFrame, report: dict[str, Any],
                qa_scores: pd.DataFrame | None = None
                ) -> tuple[pd.DataFrame, pd.DataFrame, go.Figure, go.Figure]:
    """Table 1 (every method, or ``report.table1_methods``), Table 2 (the traversal agents of
    ``report.table2_methods`` that ran) and the figure of Table 1's ``report.figure_metric``
    (as HTML and JSON). With the per-question ``qa_scores``, F1 and F1 / Golden F1 get a
    percentile bootstrap interval over each source's questions (``report.bootstrap_*``), in
    the tables and as the figure's error bars; without them the interval columns are NaN."""
    params = validate(ReportParams, report, "report")
    present = set(qa_summary["method"])
    if qa_scores is None:
        logger.warning("tabulate_qa: no per-question scores given, so no bootstrap intervals "
                       "(the <source>/f1_low, f1_high columns are empty)")
        intervals = None
    else:
        intervals = score_intervals(qa_scores, n_resamples=params.bootstrap_resamples,
                                    confidence=params.bootstrap_confidence,
                                    seed=params.bootstrap_seed)
    if params.figure_metric == "acc" and qa_summary["acc"].isna().all():
        logger.warning("tabulate_qa: report.figure_metric is acc (the LLM judge) but no judge "
                       "ran (score.judge: false): the figure is empty; hits1 is the string match")
    table1 = comparison_table(qa_summary, [m for m in params.table1_methods or
                                           dict.fromkeys(qa_summary["method"]) if m in present],
                              intervals=intervals)
    table2 = comparison_table(qa_summary, [m for m in params.table2_methods if m in present],
                              intervals=intervals)
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


def record_results(qa_scores: pd.DataFrame, report: dict[str, Any], *blocks: Any) -> None:
    """Every scored answer of the run into the committed results store
    (``<report.results.root>/<report.results.benchmark>/answers.csv`` and ``run.json``, with
    the parameter blocks of :data:`ANSWER_BLOCKS`, given in that order)."""
    params = validate(ReportParams, report, "report")
    parameters = dict(zip(ANSWER_BLOCKS, blocks))
    llm = validate(LLMParams, parameters["llm"], "llm")
    reader = f"{llm.backend}:" + (llm.local.model_path or llm.local.model
                                  if llm.backend == "local" else llm.openai.model)
    directory = Path(params.results.root) / str(params.results.benchmark)
    table = record_answers(qa_scores, directory, parameters, reader, git_commit(Path.cwd()))
    logger.info("results: %d answers of this run recorded in %s (%d in all); commit it, then "
                "python -m kgp_kedro.reporting.results regenerates its tables",
                len(qa_scores), directory / "answers.csv", len(table))


def record_retrieved(qa_scores: pd.DataFrame, report: dict[str, Any],
                     *retrieved: pd.DataFrame) -> None:
    """The retrieved passages of every question the run scored, per retrieval method, into
    ``<report.results.root>/<report.results.benchmark>/retrieved.csv.gz``: what its prompts
    were built from, which ``retrieve.replay`` reads back on any CPU
    (:mod:`kgp_kedro.retrievers.recorded`)."""
    params = validate(ReportParams, report, "report")
    path = Path(params.results.root) / str(params.results.benchmark) / FILENAME
    scored = {m: set(group) for m, group in
              qa_scores.astype({"question_id": str}).groupby("method")["question_id"]}
    tables = [recorded_rows(table, scored[table["method"].iloc[0]]) for table in retrieved
              if len(table) and table["method"].iloc[0] in scored]
    whole = record(path, tables)
    logger.info("results: the retrieved passages of %d questions and methods recorded in %s "
                "(%d rows in all)", sum(t[["method", "question_id"]].drop_duplicates().shape[0]
                                        for t in tables), path, len(whole))


def _scored_rows(qa_scores: pd.DataFrame, rows: pd.DataFrame) -> list[dict]:
    """The records of ``rows`` whose method and question the run scored."""
    scored = set(zip(qa_scores["method"], qa_scores["question_id"].astype(str)))
    return [r for r in rows.to_dict("records") if (r["method"], str(r["question_id"])) in scored]


def _record_inputs(qa_scores: pd.DataFrame, report: dict[str, Any], filename: str,
                   tables: Sequence[pd.DataFrame], record_rows, what: str) -> None:
    """The rows of ``tables`` whose method and question the run scored, recorded by
    ``record_rows`` in ``<report.results.root>/<report.results.benchmark>/<filename>``."""
    params = validate(ReportParams, report, "report")
    path = Path(params.results.root) / str(params.results.benchmark) / filename
    rows = [r for table in tables for r in _scored_rows(qa_scores, table)]
    whole = record_rows(path, rows)
    logger.info("results: the %s of %d questions and methods recorded in %s (%d rows in all)",
                what, len({(r["method"], r["question_id"]) for r in rows}), path, len(whole))


def record_composed_input(qa_scores: pd.DataFrame, report: dict[str, Any],
                          ewek_composed: pd.DataFrame) -> None:
    """What each EWEK-QA method's composer read, for every question the run scored, into
    ``<report.results.root>/<report.results.benchmark>/composed.csv.gz``, which
    ``ewek.replay`` reads back on any CPU (:mod:`kgp_kedro.ewek.recorded`)."""
    _record_inputs(qa_scores, report, COMPOSED_FILENAME, [ewek_composed], record_composed,
                   "EWEK-QA composer input")


def record_read_facts_input(qa_scores: pd.DataFrame, report: dict[str, Any],
                            *holmes_read: pd.DataFrame) -> None:
    """What each HOLMES method's reader read, for every question the run scored, into
    ``<report.results.root>/<report.results.benchmark>/read_facts.csv.gz``, which
    ``holmes.replay`` reads back on any CPU (:mod:`kgp_kedro.holmes.recorded`)."""
    _record_inputs(qa_scores, report, READ_FACTS_FILENAME, holmes_read, record_read_facts,
                   "HOLMES reader input")
