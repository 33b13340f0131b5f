"""Citation metrics of the methods whose answers carry citations (EWEK-QA): ``cited`` (the
answer cites a reference) and ``citation_accuracy`` (the share of its citations that point at
a supporting passage, computed by the method's run); NaN for the methods that do not cite."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.evaluation.metrics.base import METRICS, Column, Metric, Record


@METRICS.register("citations")
class Citations(Metric):
    columns = (Column("cited", "cited", decimals=0, shown="citations"),
               Column("citation_accuracy", "citation accuracy", decimals=0, shown="citations"))
    after = "llm_calls"

    def score(self, record: Record) -> Sequence[float]:
        a = record.answer
        cited = (float(len(a.citations) > 0) if a is not None and hasattr(a, "citations")
                 else np.nan)
        return cited, getattr(a, "citation_accuracy", np.nan)
