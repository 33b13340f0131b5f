"""Figure 7(a-b): every LLM-free KGP method re-run with each branching factor."""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

import pandas as pd

from kgp_kedro.evaluation.retrieval import RETRIEVAL_SUMMARY_COLUMNS, score_retrieval
from kgp_kedro.retrievers.kgp import Kgp
from kgp_kedro.retrievers.run import retrieve_all

logger = logging.getLogger(__name__)


def sweep_branching_factor(questions: pd.DataFrame, passages: pd.DataFrame,
                           methods: Mapping[str, object], budget: int, factors: Sequence[int],
                           **resources) -> pd.DataFrame:
    """SP-EM, recall and precision at the full budget, latency and model calls per question,
    for every KGP method of ``methods`` (:class:`~kgp_kedro.config.project.Method`) and
    branching factor. ``resources`` are :func:`~kgp_kedro.retrievers.run.retrieve_all`'s
    (encoder, graphs, setting, embeddings). Methods that call the LLM are left out (their
    cost per question is seconds, not milliseconds)."""
    rows = []
    for name, method in methods.items():
        if method.retriever is not Kgp:
            continue
        if method.requirements.llm:
            logger.info("branching sweep: %s left out (it calls the LLM)", name)
            continue
        for factor in factors:
            swept = replace(method, params=method.params.model_copy(
                update={"branching_factor": int(factor)}))
            table = retrieve_all(questions, passages, swept, budget,
                                 label=f"{name}@{factor}", **resources)
            if table.empty:  # a skipped agent
                break
            _, summary = score_retrieval(questions, passages, [budget], table)
            rows.append(summary.assign(method=name, branching_factor=int(factor)))
    if not rows:
        return pd.DataFrame(columns=[*RETRIEVAL_SUMMARY_COLUMNS, "branching_factor"])
    return pd.concat(rows, ignore_index=True)
