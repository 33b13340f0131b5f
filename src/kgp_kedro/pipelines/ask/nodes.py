"""Nodes of the ask pipeline: thin wrappers over :mod:`kgp_kedro.asking`."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from kgp_kedro.asking import answer_with_citations, answers_html, answers_markdown
from kgp_kedro.config import validate
from kgp_kedro.config.sections import AskParams, ReadParams
from kgp_kedro.llm import LLMClient, make_llm
from kgp_kedro.reading.hops import train_decompositions
from kgp_kedro.training.params import TrainParams


def reader(llm: dict[str, Any], params: AskParams) -> LLMClient:
    """The LLM of ``llm``, its answers up to ``ask.max_tokens``."""
    return make_llm({**llm, "sampling": {**(llm.get("sampling") or {}),
                                         "max_tokens": params.max_tokens}})


def ask_decompositions(params: AskParams, read: dict[str, Any], train: dict[str, Any],
                       root: Path | None = None) -> list[tuple[str, list[str]]]:
    """``ask.hops: chain``'s decomposition examples: ``read.hop_examples`` of the
    ``train.sources`` files (their paths under ``root`` when given); none for ``whole``."""
    if params.hops != "chain":
        return []
    sources = validate(TrainParams, train, "train").sources
    if root is not None:
        sources = [s.model_copy(update={"path": str(root / s.path)}) for s in sources]
    return train_decompositions(sources, validate(ReadParams, read, "read").hop_examples)


def ask(qa_questions: pd.DataFrame, retrieved: pd.DataFrame, passages: pd.DataFrame,
        ask: dict[str, Any], llm: dict[str, Any], read: dict[str, Any], train: dict[str, Any],
        sanity: pd.DataFrame | None = None) -> pd.DataFrame:
    """``ask_answers``: each question's cited answer over ``ask.method``'s contexts (the LLM of
    ``llm``, its answer up to ``ask.max_tokens``), beside ``ask.sanity``'s top file; with
    ``ask.hops: chain`` read one sub-question at a time (:func:`ask_decompositions`)."""
    params = validate(AskParams, ask, "ask")
    return answer_with_citations(
        qa_questions, retrieved, passages, reader(llm, params),
        params.method, contexts=params.contexts, instruction=params.instruction,
        margin_tokens=validate(ReadParams, read, "read").margin_tokens,
        snippet_chars=params.snippet_chars, grounding=params.grounding,
        tables=params.tables, max_documents=params.max_documents,
        quote_form=params.quote_form, distinct_quotes=params.distinct_quotes, sanity=sanity,
        sanity_method=params.sanity if sanity is not None else None,
        decompositions=ask_decompositions(params, read, train), hop_quotes=params.hop_quotes)


def write_report(ask_answers: pd.DataFrame) -> tuple[str, str]:
    """``ask_report_md`` and ``ask_report_html``: the answers report."""
    return answers_markdown(ask_answers), answers_html(ask_answers)
