"""Nodes of the ask pipeline: thin wrappers over :mod:`kgp_kedro.asking`."""
from __future__ import annotations

from typing import Any

import pandas as pd

from kgp_kedro.asking import answer_with_citations, answers_html, answers_markdown
from kgp_kedro.asking.answers import AskOptions
from kgp_kedro.config import validate
from kgp_kedro.config.sections import AskParams, ReadParams
from kgp_kedro.llm import LLMClient, make_llm


def reader(llm: dict[str, Any], params: AskParams) -> LLMClient:
    """The LLM of ``llm``, its answers up to ``ask.max_tokens``."""
    return make_llm({**llm, "sampling": {**(llm.get("sampling") or {}),
                                         "max_tokens": params.max_tokens}})


def options(ask: dict[str, Any], read: dict[str, Any]) -> AskOptions:
    """The ask options (the ``ask`` block and ``read.margin_tokens``), validated: the one
    place the ask stage and the notebook's session read them."""
    return AskOptions.of(validate(AskParams, ask, "ask"),
                         validate(ReadParams, read, "read").margin_tokens)


def ask(qa_questions: pd.DataFrame, retrieved: pd.DataFrame, passages: pd.DataFrame,
        ask: dict[str, Any], llm: dict[str, Any], read: dict[str, Any],
        sanity: pd.DataFrame | None = None) -> pd.DataFrame:
    """``ask_answers``: each question's cited answer over ``ask.method``'s contexts (the LLM of
    ``llm``, its answer up to ``ask.max_tokens``), beside ``ask.sanity``'s top file."""
    params = validate(AskParams, ask, "ask")
    return answer_with_citations(
        qa_questions, retrieved, passages, reader(llm, params), params.method,
        options(ask, read), sanity=sanity,
        sanity_method=params.sanity if sanity is not None else None)


def write_report(ask_answers: pd.DataFrame) -> tuple[str, str]:
    """``ask_report_md`` and ``ask_report_html``: the answers report."""
    return answers_markdown(ask_answers), answers_html(ask_answers)
