"""The bundled train samples (a few records each), read as the train stage reads them."""
from __future__ import annotations

import pytest

from kgp_kedro.config.sections import PassagesParams, Source
from tests.conftest import RAW

TRAIN_SOURCES = [
    Source(dataset="hotpotqa", path=str(RAW / "hotpotqa" / "hotpot_train_v1.1_sample100.json"),
           limit=3),
    Source(dataset="musique", path=str(RAW / "musique" / "musique_ans_v1.0_train_sample100.jsonl"),
           limit=1),
    Source(dataset="2wikimultihopqa", path=str(RAW / "2wikimultihopqa" / "train_sample500.json"),
           limit=3),
]


@pytest.fixture(scope="session")
def train_tables():
    """``(questions, documents, passages)`` of the first train records of each dataset."""
    from kgp_kedro.training.sources import source_collections

    return source_collections(TRAIN_SOURCES, PassagesParams(paragraph_datasets=[]), "train.sources")


@pytest.fixture(scope="session")
def train_tables_2wiki():
    """``(questions, passages)`` of the first 60 2Wiki train questions."""
    from kgp_kedro.training.sources import source_collections

    source = TRAIN_SOURCES[2].model_copy(update={"limit": 60})
    questions, _, passages = source_collections([source], PassagesParams(), "train.sources")
    return questions, passages
