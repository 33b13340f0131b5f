"""Node of the read pipeline."""
from __future__ import annotations

import logging
from typing import Any

import pandas as pd

from kgp_kedro.config import validate
from kgp_kedro.config.sections import ReadParams
from kgp_kedro.llm import make_llm
from kgp_kedro.reading.demonstrations import train_demonstrations, with_demonstrations
from kgp_kedro.reading.hops import train_decompositions
from kgp_kedro.reading.reader import READ_COLUMNS, read_answers
from kgp_kedro.training.params import TrainParams

logger = logging.getLogger(__name__)


def answer_questions(qa_questions: pd.DataFrame, retrieved: pd.DataFrame, passages: pd.DataFrame,
                     llm: dict[str, Any], read: dict[str, Any], train: dict[str, Any],
                     name: str, ran_as: str = "", llm_retrieval: bool = False) -> pd.DataFrame:
    """``answers_<name>``: the reader's answer to each QA question given method ``name``'s
    contexts (prompt style from ``read.prompt_styles``). A method whose retrieval was skipped
    (empty table) is skipped here too. Failed LLM calls are rows with ``error`` set, scored as
    wrong answers; when every call fails the method is recorded as failed (one WARNING line
    says so) and the run goes on with the other methods. ``ran_as`` describes the method
    (its row label in the results store); with ``llm_retrieval`` (IRCoT, the chat agent) the
    retriever's calls count in each answer's ``llm_calls``. ``read.demonstrations`` (and
    ``read.hops: typed``'s decomposition examples) are drawn from ``train.sources``'
    questions."""
    if retrieved.empty:
        logger.warning("read %s skipped: its retrieval produced nothing (method skipped)", name)
        return pd.DataFrame(columns=READ_COLUMNS)
    params = validate(ReadParams, read, "read")
    calls = (retrieved.drop_duplicates("question_id").set_index("question_id")["calls"]
             .astype(int).to_dict() if llm_retrieval else {})
    sources = (validate(TrainParams, train, "train").sources
               if params.demonstrations or params.hops != "whole" else [])
    demonstrations = (train_demonstrations(sources, params.demonstrations)
                      if params.demonstrations else [])
    decompositions = (train_decompositions(sources)
                      if params.hops != "whole" else [])
    return read_answers(qa_questions, retrieved, passages, make_llm(llm), name,
                        params.style(name), params.margin_tokens,
                        with_demonstrations(params.system_prompt, demonstrations),
                        params.max_passages, ran_as, calls, params.context_form,
                        params.answer_form, params.max_documents, params.choice, params.hops,
                        decompositions, params.passage_window)
