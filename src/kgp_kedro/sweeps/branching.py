"""Figure 7(a-b): every LLM-free KGP method re-run with each branching factor, the budget fixed
and the seeds lowered as the paper does (seeds = budget // branching factor)."""
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
    for every KGP method of ``methods`` (:class:`~kgp_kedro.pipelines.parameter_tree.Method`) and
    branching factor. As in Figure 7(a-b) the budget stays fixed and each run has
    ``budget // branching factor`` seeds (``seeds: auto``; the ``seeds`` column), whatever the
    method's own ``seeds``; its mode (paper: the budget counts paths) is the method's.
    ``resources`` are :func:`~kgp_kedro.retrievers.run.retrieve_all`'s (encoder, graphs,
    setting, embeddings). Methods that call the LLM are left out (their cost per question is
    seconds, not milliseconds)."""
    rows = []
    for name, method in methods.items():
        if method.retriever is not Kgp:
            continue
        if method.requirements.llm:
            logger.info("branching sweep: %s left out (it calls the LLM)", name)
            continue
        for factor in factors:
            params = method.params.model_copy(update={"branching_factor": int(factor),
                                                      "seeds": "auto"})
            swept = replace(method, params=params)
            table = retrieve_all(questions, passages, swept, budget,
                                 label=f"{name}@{factor}", **resources)
            if table.empty:  # a skipped agent
                break
            _, summary = score_retrieval(questions, passages, [budget], table)
            rows.append(summary.assign(method=name, branching_factor=int(factor),
                                       seeds=params.seeds_for(budget)))
    if not rows:
        return pd.DataFrame(columns=[*RETRIEVAL_SUMMARY_COLUMNS, "branching_factor", "seeds"])
    return pd.concat(rows, ignore_index=True)
