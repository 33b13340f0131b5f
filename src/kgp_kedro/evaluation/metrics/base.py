"""The answer / citation metric interface: one scored record in, one value per column out.

A metric is one module of this package with a :class:`Metric` subclass registered with
``@METRICS.register("<name>")``. It declares its :attr:`~Metric.columns` (each a
:class:`Column`: the score table's column name, its label in the generated tables, and how its
mean is shown), where they sit in the score table (:attr:`~Metric.after`: the column they
follow; ``None``, the default, puts them at the end), and how a question's value is computed
(:meth:`Metric.score`, from a :class:`Record`: the question, the method's answer, the gold
answers, the passages the reader saw). The score stage, the summary tables and the generated
tables (``tables.md``, the results prose) read the columns from :data:`METRICS`, so a metric
added as one module appears in all of them.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import pandas as pd

from kgp_kedro.plumbing.registry import Registry

# where a column's mean is shown:
#   table1:    averaged in the summary tables (qa_summary, qa_by_type) and a column of Table 1
#              (qa_table1 / qa_table2, tables.md) where the source has a value
#   summary:   averaged in the summary tables only
#   citations: averaged over the answers that cite, in tables.md's Citations table only
Shown = Literal["table1", "summary", "citations"]


@dataclass(frozen=True)
class Column:
    """One column of the score table that a metric fills."""

    name: str
    label: str                  # its header in the generated tables and figures
    percent: bool = True        # a mean is shown x 100 (one decimal in tables.md), else as is
    decimals: int = 1           # decimals of a percent mean quoted in results prose
    shown: Shown = "table1"
    optional: bool = False      # in Table 1's frame only where the source has a value
    # its place among the metrics of Table 1's frame (qa_table1 / qa_table2): lower first,
    # the unranked after them in score-table order
    rank: int | None = None


@dataclass(frozen=True)
class Record:
    """What a metric sees of one question and one method's answer to it."""

    question: Any               # the question's row of qa_questions (a named tuple)
    answer: Any | None          # the method's answer row, None when it has none
    prediction: str             # the answer text ("" without an answer row)
    golds: list[str]            # the gold answer and its aliases
    supporting: frozenset[str]  # the question's supporting passages
    seen: frozenset[str]        # the passages the reader saw


class Metric(ABC):
    """A metric of every answer; one instance per method's score table."""

    name: ClassVar[str]
    columns: ClassVar[tuple[Column, ...]]
    after: ClassVar[str | None] = None   # the score-table column these follow; None: the end

    def __init__(self, passages: pd.DataFrame) -> None:
        """``passages``: the passages table (for metrics that look passages up)."""

    @abstractmethod
    def score(self, record: Record) -> Sequence[float]:
        """One value per column of :attr:`columns`, in their order (NaN: not measured)."""


METRICS: Registry[Metric] = Registry("metric", "kgp_kedro.evaluation.metrics")


def registered() -> list[type[Metric]]:
    """Every registered metric, by name."""
    return [METRICS.get(name) for name in METRICS.names()]


def place_columns(fields: Sequence[str]) -> list[Column | str]:
    """``fields`` (the record fields, in order) with every registered metric's columns
    placed right after the column its ``after`` names (metrics that follow the same column
    in name order, each followed in turn by the metrics placed after its own columns), and
    the metrics with ``after=None`` at the end, by name. A field stays a ``str``; a metric's
    column is its :class:`Column`."""
    followers: dict[str | None, list[type[Metric]]] = defaultdict(list)
    for metric in registered():
        followers[metric.after].append(metric)
    placed: list[Column | str] = []

    def follow(name: str | None) -> None:
        for metric in followers.pop(name, ()):
            for column in metric.columns:
                placed.append(column)
                follow(column.name)

    for field in fields:
        placed.append(field)
        follow(field)
    follow(None)
    if followers:
        stray = ", ".join(f"{m.name} (after={a!r})" for a, ms in followers.items() for m in ms)
        raise ValueError(f"metrics placed after no column of the score table: {stray}")
    return placed
