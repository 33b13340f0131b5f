"""Nodes of the ingest stage: thin wrappers over :mod:`kgp_kedro.corpus`."""
from __future__ import annotations

from typing import Any

import pandas as pd

from kgp_kedro.config import validate
from kgp_kedro.config.sections import IngestParams
from kgp_kedro.corpus import build_collections
from kgp_kedro.corpus.sources import SKIPPED_COLUMNS, SourceRead
from kgp_kedro.corpus.schema import DOCUMENT_COLUMNS, QUESTION_COLUMNS


def combine_sources(*reads: SourceRead) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The raw sources (``raw_<source>``: one per ``ingest.sources`` entry, in order, each read
    by :class:`~kgp_kedro.io.raw_source.RawSourceDataset`) as the ``questions`` table, the
    table of each question's own documents, and ``skipped_files``: the files of a documents
    folder left out, each with the reason."""
    questions = [row for read in reads for row in read.questions]
    documents = [row for read in reads for row in read.documents]
    skipped = [row for read in reads for row in read.skipped]
    return (pd.DataFrame(questions, columns=QUESTION_COLUMNS).astype({"n_hops": "Int64"}),
            pd.DataFrame(documents, columns=DOCUMENT_COLUMNS),
            pd.DataFrame(skipped, columns=SKIPPED_COLUMNS))


def add_negative_documents(questions: pd.DataFrame, own_documents: pd.DataFrame,
                           ingest: dict[str, Any]) -> pd.DataFrame:
    """Complete each collection with seeded negative documents (paper §8.1): up to
    ``ingest.collection_size`` passages for a dataset listed there (Table 3's sizes by default),
    else ``negatives_per_question`` documents, drawn from ``ingest.negative_pool``. Adds each
    document's ``dataset``."""
    params = validate(IngestParams, ingest, "ingest")
    return build_collections(questions, own_documents, params.negatives_per_question, params.seed,
                             params.collection_size, params.negative_pool)


def select_qa_questions(questions: pd.DataFrame, ingest: dict[str, Any]) -> pd.DataFrame:
    """The questions the reader answers (and the LLM-driven retrievers run on): the first
    ``qa_questions_per_source`` of each source in file order, or all when null. One set for
    every method, so every method is scored on the same denominator."""
    per_source = validate(IngestParams, ingest, "ingest").qa_questions_per_source
    if per_source is None:
        return questions
    return questions.groupby("source", sort=False).head(per_source).reset_index(drop=True)
