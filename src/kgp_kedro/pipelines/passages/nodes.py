"""Node of the passages stage."""
from __future__ import annotations

from typing import Any

import pandas as pd

from kgp_kedro.config import validate
from kgp_kedro.config.sections import PassagesParams
from kgp_kedro.corpus import split_passages


def split_into_passages(documents: pd.DataFrame, passages: dict[str, Any]) -> pd.DataFrame:
    """Every document split into passages: whole paragraphs for ``passages.paragraph_datasets``
    (MuSiQue), dataset sentences where ``sentence_level`` (HotpotQA, 2Wiki), else sentences
    packed up to ``max_chars``; each text's sentence split read back from
    ``passages.cache_dir`` when it was split before."""
    params = validate(PassagesParams, passages, "passages")
    return split_passages(documents, params.sentence_level, params.max_chars,
                          params.paragraph_datasets, params.cache_dir)
