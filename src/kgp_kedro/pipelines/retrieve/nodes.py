"""Node of the retrieve pipeline in replay mode (``retrieve.replay``)."""
from __future__ import annotations

import logging

import pandas as pd

from kgp_kedro.retrievers.recorded import read_recorded, replayed

logger = logging.getLogger(__name__)


def replay_retrieved(qa_questions: pd.DataFrame, replay: str, name: str) -> pd.DataFrame:
    """``retrieved_<name>`` for the QA questions read from the recording ``replay`` (the
    passages the benchmark's prompts were built from) instead of retrieved."""
    table = replayed(qa_questions, read_recorded(replay), name, replay)
    logger.info("retrieve %s: %d questions replayed from %s", name, len(qa_questions), replay)
    return table
