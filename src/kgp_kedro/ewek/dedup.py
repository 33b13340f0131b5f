"""Deduplicator (EWEK-QA §3.1.1): the Paragraph Splitter and the Evidence Extractor read the
same pages, so their quotes overlap; a quote whose MiniLM cosine to a quote already kept is
above the threshold is dropped."""
from __future__ import annotations

import numpy as np

from kgp_kedro.search.ranking import rank_key


def deduplicate(vectors: np.ndarray, threshold: float) -> list[int]:
    """Positions kept, in the given (ranked) order: each quote is compared with the quotes
    kept before it and dropped when its cosine to one of them is above ``threshold`` (a
    cosine equal to it is kept), cosines compared at
    :data:`~kgp_kedro.search.ranking.RANK_DIGITS` digits so that an encoder's last-bit float
    difference does not flip a quote at the threshold. ``vectors``: L2-normalised rows."""
    kept: list[int] = []
    for i in range(len(vectors)):
        if kept and float(rank_key(np.max(vectors[kept] @ vectors[i]))) > threshold:
            continue
        kept.append(i)
    return kept
