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
from kgp_kedro.evaluation.qa_metrics import contains_answer, exact_match, f1_score, parse_judgement
from kgp_kedro.prompts.kgp import judge_prompt
from kgp_kedro.evaluation.structure import STRUCTURE_METRICS, StructureIndex, gold_structure

logger = logging.getLogger(__name__)

SCORE_COLUMNS = ["source", "question_id", "method", "qtype", "n_hops", "gold", "prediction",
                 "em", "f1", "acc", "hits1", "failed", "context_sp_recall", "n_contexts",
                 "prompt_tokens", "completion_tokens", "reader_latency_ms", "llm_calls",
                 "cited", "citation_accuracy", "ran_as", *STRUCTURE_METRICS]


def score_answers(questions: pd.DataFrame, answers: pd.DataFrame, passages: pd.DataFrame,
                  method: str, judge=None, judge_max_tokens: int | None = None) -> pd.DataFrame:
    """EM, F1, Hits@1 (``hits1``: a gold answer contained in the prediction), the paper's Acc
    (``acc``: the Listing 5 LLM judge's verdict when ``judge``, an LLM client, is given; NaN
    otherwise), the supporting-passage recall of the contexts the reader saw, and for the
    structural questions of a documents folder Struct-EM and the page / table hit
    (:mod:`kgp_kedro.evaluation.structure`; NaN elsewhere), for every question. The answer's
    ``llm_calls`` and ``ran_as`` (what ran under the method's name) are kept; ``cited`` (the
    answer cites a reference) and ``citation_accuracy`` for methods whose answers carry
    citations (EWEK-QA), NaN for the others."""
    structure = StructureIndex(passages)
    supporting = {cid: set(ids) for cid, ids in supporting_passages(passages).items()}
    by_question = {a.question_id: a for a in answers.itertuples(index=False)}
    missing = [q for q in questions["question_id"] if q not in by_question]
    if missing:
        logger.warning("score %s: %d questions have no answer row; counted as failed",
                       method, len(missing))
    rows = []
    for q in questions.itertuples(index=False):
        a = by_question.get(q.question_id)
        failed = a is None or bool(pd.notna(a.error))
        prediction = "" if a is None else a.answer
        golds = list(q.answers) if len(q.answers) else [q.answer]
        gold_sp = supporting.get(q.collection_id, set())
        seen = set(a.context_ids) if a is not None else set()
        em = exact_match(prediction, golds)
        rows.append({
            "source": q.source, "question_id": q.question_id, "method": method,
            "qtype": q.qtype, "n_hops": q.n_hops, "gold": q.answer, "prediction": prediction,
            "em": em, "f1": f1_score(prediction, golds),
            "acc": np.nan, "hits1": contains_answer(prediction, golds), "failed": failed,
            "context_sp_recall": len(seen & gold_sp) / len(gold_sp) if gold_sp else np.nan,
            "n_contexts": 0 if a is None else a.n_contexts,
            "prompt_tokens": 0 if a is None else a.prompt_tokens,
            "completion_tokens": 0 if a is None else a.completion_tokens,
            "reader_latency_ms": np.nan if a is None else a.latency_ms,
            "llm_calls": 0 if a is None else a.llm_calls,
            "cited": (float(len(a.citations) > 0) if a is not None and hasattr(a, "citations")
                      else np.nan),
            "citation_accuracy": getattr(a, "citation_accuracy", np.nan),
            "ran_as": "" if a is None or not isinstance(a.ran_as, str) else a.ran_as,
            **structure.scores(gold_structure(getattr(q, "meta", None)), q.source, em, seen)})
    scores = pd.DataFrame(rows, columns=SCORE_COLUMNS)
    if judge is not None and len(scores):
        prompts = [[{"role": "user", "content": judge_prompt(q, g, p)}]
                   for q, g, p in zip(questions["question"], scores["gold"],
                                      scores["prediction"])]
        replies = judge.complete_many(prompts, max_tokens=judge_max_tokens,
                                      desc=f"judge {method}")
        # an empty prediction or an unreadable verdict is wrong, like a failed call
        scores["acc"] = [0.0 if not p or (v := parse_judgement(r.text)) is None else v
                         for p, r in zip(scores["prediction"], replies)]
    return scores


SUMMARY_METRICS = ["em", "f1", "acc", "hits1", "context_sp_recall", "n_contexts",
                   "prompt_tokens", "completion_tokens", "reader_latency_ms",
                   *STRUCTURE_METRICS]


def summarise_scores(scores: pd.DataFrame, by: tuple[str, ...] = ("source", "method")) -> pd.DataFrame:
    """Means of the per-question scores by ``by``, with ``questions`` (the questions each mean
    rests on) and ``failed`` counts; ``acc`` stays NaN where no judge ran."""
    grouped = scores.groupby(list(by), sort=False, dropna=False)
    # score tables made before the structural metrics lack their columns
    summary = grouped[[m for m in SUMMARY_METRICS if m in scores.columns]].mean()
    summary.insert(0, "failed", grouped["failed"].sum())
    summary.insert(0, "questions", grouped.size())
    return summary.reset_index()
