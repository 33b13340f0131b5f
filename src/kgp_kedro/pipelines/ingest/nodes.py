"""Nodes of the ingest pipeline: thin wrappers over :mod:`kgp_kedro.corpus`."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from kgp_kedro.corpus import build_collections, read_source
from kgp_kedro.corpus.schema import DOCUMENT_COLUMNS, QUESTION_COLUMNS


def _source_names(sources: list[dict[str, Any]]) -> list[str]:
    """``name`` when given, else the dataset; repeated datasets get their file stem appended."""
    counts = Counter(s["dataset"] for s in sources if not s.get("name"))
    return [s.get("name") or (s["dataset"] if counts[s["dataset"]] == 1
                              else f"{s['dataset']}_{Path(s['path']).stem}") for s in sources]


def read_sources(sources: list[dict[str, Any]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read every configured source (``ingest.sources``: dataset, path, limit) into the
    ``questions`` table and the table of each question's own documents."""
    if not sources:
        raise ValueError("ingest.sources is empty: configure at least one source")
    for i, s in enumerate(sources):
        missing = {"dataset", "path"} - set(s)
        if missing:
            raise ValueError(f"ingest.sources[{i}] lacks {', '.join(sorted(missing))}")
    names = _source_names(sources)
    if len(set(names)) != len(names):
        raise ValueError(f"ingest.sources have repeated names: {names}")
    questions, documents = [], []
    for source, name in zip(sources, names):
        q, d = read_source(source["dataset"], source["path"], name, source.get("limit"))
        questions.extend(q)
        documents.extend(d)
    return (pd.DataFrame(questions, columns=QUESTION_COLUMNS).astype({"n_hops": "Int64"}),
            pd.DataFrame(documents, columns=DOCUMENT_COLUMNS))


def add_negative_documents(questions: pd.DataFrame, own_documents: pd.DataFrame,
                           negatives_per_question: int, seed: int) -> pd.DataFrame:
    """Complete each collection with seeded negative documents (paper §8.1)."""
    return build_collections(questions, own_documents, negatives_per_question, seed)


def select_qa_questions(questions: pd.DataFrame, per_source: int | None) -> pd.DataFrame:
    """The questions the reader answers (and the LLM-driven retrievers run on): the first
    ``per_source`` of each source in file order, or all when null. One set for every method,
    so every method is scored on the same denominator."""
    if per_source is None:
        return questions
    if int(per_source) < 1:
        raise ValueError(f"ingest.qa_questions_per_source must be >= 1 or null, got {per_source}")
    return questions.groupby("source", sort=False).head(int(per_source)).reset_index(drop=True)
