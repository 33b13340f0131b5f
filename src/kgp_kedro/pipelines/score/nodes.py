"""Nodes of the score pipeline."""
from __future__ import annotations

import logging
from typing import Any

import pandas as pd

from kgp_kedro.config import validate
from kgp_kedro.config.sections import ScoreParams
from kgp_kedro.evaluation.qa_scores import (metric_columns, score_answers, score_columns,
                                             summarise_scores)
from kgp_kedro.llm import make_llm

logger = logging.getLogger(__name__)


def score_method(qa_questions: pd.DataFrame, answers: pd.DataFrame, passages: pd.DataFrame,
                 score: dict[str, Any], llm: dict[str, Any], name: str) -> pd.DataFrame:
    """Per-question scores of method ``name`` (empty when the method was skipped). The LLM
    judge (Listing 5) runs when ``score.judge`` is true, with the LLM of parameters_llm.yml, and
    gives ``acc`` (the paper's Acc); without it ``acc`` is NaN and ``hits1`` (a gold answer
    contained in the prediction) is the string-match score."""
    if answers.empty:
        logger.warning("score %s skipped: no answers (method skipped)", name)
        return pd.DataFrame(columns=score_columns())
    params = validate(ScoreParams, score, "score")
    judge = make_llm(llm) if params.judge else None
    scores = score_answers(qa_questions, answers, passages, name, judge,
                           params.judge_max_tokens)
    _log_score_summary(scores, name)
    return scores


def _log_score_summary(scores: pd.DataFrame, name: str) -> None:
    """One line per method: its questions, failures (scored as wrong) and the mean of each
    Table 1 metric that has a value (EM, F1, Acc when the judge ran, Hits@1, ...)."""
    n, failed = len(scores), int(scores["failed"].astype(bool).sum()) if len(scores) else 0
    means = "no questions"
    if n:
        means = ", ".join(f"{c.label} {scores[c.name].astype(float).mean():.3f}"
                          for c in metric_columns("table1") if scores[c.name].notna().any())
    if n and failed == n:
        logger.warning("score %s: FAILED: all %d questions failed (no answer from the reader), "
                       "scored as wrong: %s", name, n, means)
    elif failed:
        logger.warning("score %s: %d questions, %d failed and scored as wrong: %s", name, n,
                       failed, means)
    else:
        logger.info("score %s: %d questions: %s", name, n, means)


def summarise_qa(*method_scores: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """All per-question scores in one table, their means by source and method, and by source,
    method and question type. A method whose calls all failed is in them with every question
    ``failed`` (scored as wrong); one line names the methods that failed entirely."""
    present = [s for s in method_scores if not s.empty]
    if not present:
        logger.warning("summarise_qa: no method produced scores (every method was skipped)")
        scores = pd.DataFrame(columns=score_columns())
    else:
        scores = pd.concat(present, ignore_index=True)
    scores["failed"] = scores["failed"].astype(bool)
    for column in [*(c.name for c in metric_columns()), "reader_latency_ms"]:
        scores[column] = scores[column].astype(float)
    all_failed = [m for m, group in scores.groupby("method", sort=False)
                  if len(group) and group["failed"].all()]
    if all_failed:
        logger.warning("summarise_qa: %d methods failed entirely (every question scored as "
                       "wrong): %s", len(all_failed), ", ".join(all_failed))
    return (scores, summarise_scores(scores),
            summarise_scores(scores, ("source", "method", "qtype")))
