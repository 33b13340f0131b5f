"""Nodes of the score pipeline."""
from __future__ import annotations

import logging
from typing import Any

import pandas as pd

from kgp_kedro.evaluation.qa_scores import SCORE_COLUMNS, score_answers, summarise_scores
from kgp_kedro.llm import make_llm

logger = logging.getLogger(__name__)


def score_method(qa_questions: pd.DataFrame, answers: pd.DataFrame, passages: pd.DataFrame,
                 score: dict[str, Any], llm: dict[str, Any], name: str) -> pd.DataFrame:
    """Per-question scores of method ``name`` (empty when the method was skipped). The LLM
    judge (Listing 5) runs when ``score.judge`` is true, with the LLM of parameters_llm.yml."""
    if answers.empty:
        logger.warning("score %s skipped: no answers (method skipped)", name)
        return pd.DataFrame(columns=SCORE_COLUMNS)
    judge = make_llm(llm) if score.get("judge") else None
    return score_answers(qa_questions, answers, passages, name, judge)


def summarise_qa(*method_scores: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """All per-question scores in one table, their means by source and method, and by source,
    method and question type."""
    scores = pd.concat([s for s in method_scores if not s.empty], ignore_index=True)
    scores["failed"] = scores["failed"].astype(bool)
    for column in ("em", "f1", "acc", "judge_acc", "context_sp_recall", "reader_latency_ms"):
        scores[column] = scores[column].astype(float)
    return (scores, summarise_scores(scores),
            summarise_scores(scores, ("source", "method", "qtype")))
