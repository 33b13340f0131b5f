"""Train files as collections: each question's own documents (a dataset's distractors are the
negatives), split into passages as the passages stage splits the ingested ones, so the
training units are the passages the retrievers see."""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from kgp_kedro.config.sections import PassagesParams, Source


def source_collections(sources: Sequence[Source], passages: PassagesParams,
                       key: str = "ewek.training.sources"
                       ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(questions, documents, passages)`` of the train files in ``sources``. A source that
    cannot be read stops here, naming ``<key>[i]``."""
    from kgp_kedro.corpus import build_collections, split_passages
    from kgp_kedro.corpus.sources import read_source
    from kgp_kedro.corpus.schema import DOCUMENT_COLUMNS, QUESTION_COLUMNS

    questions, documents = [], []
    for i, s in enumerate(sources):
        rows, docs = read_source(s.dataset, s.path, s.name or f"{s.dataset}_train", s.limit,
                                 param_key=f"{key}[{i}]")
        questions += rows
        documents += docs
    questions = pd.DataFrame(questions, columns=QUESTION_COLUMNS)
    documents = build_collections(questions, pd.DataFrame(documents, columns=DOCUMENT_COLUMNS),
                                  0, 0)
    return questions, documents, split_passages(documents, passages.sentence_level,
                                                passages.max_chars, passages.paragraph_datasets)
