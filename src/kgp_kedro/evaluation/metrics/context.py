"""The supporting-passage recall of the contexts the reader saw (``context_sp_recall``): how
much of the question's supporting passages reached the reader's prompt."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.evaluation.metrics.base import METRICS, Column, Metric, Record


@METRICS.register("context_sp_recall")
class ContextRecall(Metric):
    columns = (Column("context_sp_recall", "context SP recall", percent=False,
                      shown="summary"),)
    after = "failed"

    def score(self, record: Record) -> Sequence[float]:
        gold = record.supporting
        return (len(record.seen & gold) / len(gold) if gold else np.nan,)
