"""Table 1's Comp column on a documents folder's structural questions: Struct-EM and whether
the reader saw the gold page and table (:mod:`kgp_kedro.evaluation.structure`); NaN on the
other questions, so a source without structural questions leaves them out of Table 1."""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from kgp_kedro.evaluation.metrics.base import METRICS, Column, Metric, Record
from kgp_kedro.evaluation.qa_metrics import exact_match
from kgp_kedro.evaluation.structure import STRUCTURE_METRICS, StructureIndex, gold_structure

_LABELS = {"struct_em": "Struct-EM", "page_hit": "page hit", "table_hit": "table hit"}


@METRICS.register("structure")
class StructureScores(Metric):
    columns = tuple(Column(name, _LABELS[name], optional=True) for name in STRUCTURE_METRICS)
    after = "ran_as"

    def __init__(self, passages: pd.DataFrame) -> None:
        super().__init__(passages)
        self.index = StructureIndex(passages)

    def score(self, record: Record) -> Sequence[float]:
        q = record.question
        values = self.index.scores(gold_structure(getattr(q, "meta", None)), q.source,
                                   exact_match(record.prediction, record.golds), record.seen)
        return tuple(values[name] for name in STRUCTURE_METRICS)
