"""Per-question and summary QA scores of a method's answers, on one denominator: every
question asked counts, and a failed or missing call is a wrong answer, reported as failed.

``acc`` is the paper's Acc, the Listing 5 LLM judge's verdict, and is empty (NaN) when no judge
runs (``score.judge: false``); ``hits1`` is EWEK-QA's Hits@1, a normalised gold answer contained
in the prediction as whole words."""
from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from kgp_kedro.corpus.collection import supporting_passages
from kgp_kedro.evaluation.metrics.answer import judge_accuracy
from kgp_kedro.evaluation.metrics.base import Column, Record, place_columns, registered

logger = logging.getLogger(__name__)

# the score table's columns that are not metrics: the question, the method's answer and its
# costs, in the order of every committed answers.csv; each metric (:mod:`kgp_kedro.evaluation.
# metrics`) places its columns after one of them (:func:`score_columns`)
RECORD_FIELDS = ["source", "question_id", "method", "qtype", "n_hops", "gold", "prediction",
                 "failed", "n_contexts", "prompt_tokens", "completion_tokens",
                 "reader_latency_ms", "llm_calls", "ran_as"]
# the record fields averaged in the summary tables beside the metrics (the reader's costs)
AVERAGED_FIELDS = ("n_contexts", "prompt_tokens", "completion_tokens", "reader_latency_ms")


def score_columns() -> list[str]:
    """The score table's columns: :data:`RECORD_FIELDS` with every registered metric's
    columns in their places (the header of every committed ``answers.csv``)."""
    return [c if isinstance(c, str) else c.name for c in place_columns(RECORD_FIELDS)]


def metric_columns(shown: str | None = None) -> list[Column]:
    """The registered metrics' columns in score-table order (only those ``shown`` so, when
    given: ``table1``, ``summary`` or ``citations``)."""
    return [c for c in place_columns(RECORD_FIELDS)
            if isinstance(c, Column) and shown in (None, c.shown)]


def __getattr__(name: str):
    # SCORE_COLUMNS, the hand-kept list this module had: now read from the registry
    if name == "SCORE_COLUMNS":
        return score_columns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def score_answers(questions: pd.DataFrame, answers: pd.DataFrame, passages: pd.DataFrame,
                  method: str, judge=None, judge_max_tokens: int | None = None) -> pd.DataFrame:
    """The score table of ``method``'s answers: one row per question, its record fields and
    every registered metric's values (:mod:`kgp_kedro.evaluation.metrics`: EM, F1, Hits@1,
    the supporting-passage recall of the contexts the reader saw, the citations of methods
    whose answers cite, Struct-EM and the page / table hits of structural questions, ...).
    The paper's Acc (``acc``) is the Listing 5 LLM judge's verdict when ``judge``, an LLM
    client, is given; NaN otherwise. The answer's ``llm_calls`` and ``ran_as`` (what ran under
    the method's name) are kept."""
    metrics = [metric(passages) for metric in registered()]
    supporting = {cid: frozenset(ids) for cid, ids in supporting_passages(passages).items()}
    by_question = {a.question_id: a for a in answers.itertuples(index=False)}
    missing = [q for q in questions["question_id"] if q not in by_question]
    if missing:
        logger.warning("score %s: %d questions have no answer row; counted as failed",
                       method, len(missing))
    rows = []
    for q in questions.itertuples(index=False):
        a = by_question.get(q.question_id)
        prediction = "" if a is None else a.answer
        record = Record(question=q, answer=a, prediction=prediction,
                        golds=list(q.answers) if len(q.answers) else [q.answer],
                        supporting=supporting.get(q.collection_id, frozenset()),
                        seen=frozenset(a.context_ids) if a is not None else frozenset())
        row = {
            "source": q.source, "question_id": q.question_id, "method": method,
            "qtype": q.qtype, "n_hops": q.n_hops, "gold": q.answer, "prediction": prediction,
            "failed": a is None or bool(pd.notna(a.error)),
            "n_contexts": 0 if a is None else a.n_contexts,
            "prompt_tokens": 0 if a is None else a.prompt_tokens,
            "completion_tokens": 0 if a is None else a.completion_tokens,
            "reader_latency_ms": np.nan if a is None else a.latency_ms,
            "llm_calls": 0 if a is None else a.llm_calls,
            "ran_as": "" if a is None or not isinstance(a.ran_as, str) else a.ran_as}
        for metric in metrics:
            row.update(zip((c.name for c in metric.columns), metric.score(record), strict=True))
        rows.append(row)
    scores = pd.DataFrame(rows, columns=score_columns())
    if judge is not None and len(scores):
        scores["acc"] = judge_accuracy(questions, scores, judge, judge_max_tokens, method)
    return scores


def summary_columns() -> list[str]:
    """The columns :func:`summarise_scores` averages, in score-table order: the metrics shown
    in the summary tables and the reader's costs (:data:`AVERAGED_FIELDS`)."""
    averaged = {c.name for c in metric_columns() if c.shown != "citations"}
    return [c for c in score_columns() if c in averaged or c in AVERAGED_FIELDS]


def summarise_scores(scores: pd.DataFrame, by: tuple[str, ...] = ("source", "method")) -> pd.DataFrame:
    """Means of the per-question scores by ``by``, with ``questions`` (the questions each mean
    rests on) and ``failed`` counts; ``acc`` stays NaN where no judge ran."""
    grouped = scores.groupby(list(by), sort=False, dropna=False)
    # score tables made before a metric was added lack its columns
    summary = grouped[[m for m in summary_columns() if m in scores.columns]].mean()
    summary.insert(0, "failed", grouped["failed"].sum())
    summary.insert(0, "questions", grouped.size())
    return summary.reset_index()
