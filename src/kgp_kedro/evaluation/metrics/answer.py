"""The answer metrics of the score table: SQuAD-style EM and token F1 over the gold answer and
its aliases, the paper's Acc (its Listing 5 LLM judge, ``acc``) and EWEK-QA's Hits@1 (a gold
answer contained in the prediction, ``hits1``); the definitions are in
:mod:`kgp_kedro.evaluation.qa_metrics`. Table 1's frame lists them as before the registry:
Acc, Hits@1, EM, F1 (their ``rank``)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from kgp_kedro.evaluation.metrics.base import METRICS, Column, Metric, Record
from kgp_kedro.evaluation.qa_metrics import (contains_answer, exact_match, f1_score,
                                             parse_judgement)
from kgp_kedro.prompts.kgp import judge_prompt


@METRICS.register("em")
class ExactMatch(Metric):
    columns = (Column("em", "EM", rank=2),)
    after = "prediction"

    def score(self, record: Record) -> Sequence[float]:
        return (exact_match(record.prediction, record.golds),)


@METRICS.register("f1")
class TokenF1(Metric):
    columns = (Column("f1", "F1", rank=3),)
    after = "em"

    def score(self, record: Record) -> Sequence[float]:
        return (f1_score(record.prediction, record.golds),)


@METRICS.register("acc")
class JudgeAccuracy(Metric):
    """The paper's Acc: empty (NaN) per record; :func:`judge_accuracy` fills the column when
    the LLM judge runs (``score.judge: true``)."""

    columns = (Column("acc", "Acc (LLM judge)", rank=0),)
    after = "f1"

    def score(self, record: Record) -> Sequence[float]:
        return (np.nan,)


@METRICS.register("hits1")
class HitsAt1(Metric):
    columns = (Column("hits1", "Hits@1", decimals=0, rank=1),)
    after = "acc"

    def score(self, record: Record) -> Sequence[float]:
        return (contains_answer(record.prediction, record.golds),)


def judge_accuracy(questions: pd.DataFrame, scores: pd.DataFrame, judge, max_tokens: int | None,
                   method: str) -> list[float]:
    """The ``acc`` column: the Listing 5 judge's verdict on each row of ``scores`` (one per
    question of ``questions``, in order), asked of ``judge`` (an LLM client). An empty
    prediction or an unreadable verdict is wrong, like a failed call."""
    prompts = [[{"role": "user", "content": judge_prompt(q, g, p)}]
               for q, g, p in zip(questions["question"], scores["gold"], scores["prediction"])]
    replies = judge.complete_many(prompts, max_tokens=max_tokens, desc=f"judge {method}")
    return [0.0 if not p or (v := parse_judgement(r.text)) is None else v
            for p, r in zip(scores["prediction"], replies)]
