"""Structural-question scores (paper Table 1, the Comp column): Struct-EM, the reader's EM on
the questions about document structure (a page, a table), and whether the retrieval reached
the right page and table.

A structural question carries its gold structural node in its ``meta`` (``structure``:
``file``, ``page``, ``table``, from a documents folder's ``questions.jsonl``). Per question:

- ``struct_em``: the answer's EM when the question is structural, else NaN (a source's mean
  is then Struct-EM over its structural questions);
- ``page_hit``: 1 when a passage the reader saw lies on the gold page of the gold file (NaN
  without a gold page);
- ``table_hit``: 1 when the reader saw the gold table (the ``table``-th table passage of the
  file in reading order; NaN without a gold table).
"""
from __future__ import annotations

import json
from collections.abc import Iterable

import numpy as np
import pandas as pd

STRUCTURE_METRICS = ["struct_em", "page_hit", "table_hit"]


def gold_structure(meta: str | None) -> dict | None:
    """The ``structure`` of a question's meta JSON, or None."""
    try:
        return json.loads(meta or "{}").get("structure")
    except (json.JSONDecodeError, AttributeError):
        return None


class StructureIndex:
    """Pages and tables of the passages table, for the hit rates."""

    def __init__(self, passages: pd.DataFrame) -> None:
        has = "page" in passages.columns and "kind" in passages.columns
        rows = passages if has else passages.iloc[0:0]
        first = rows.drop_duplicates("passage_id")
        self.page_of = {p: (d, int(g)) for p, d, g in
                        zip(first["passage_id"], first["doc_id"], first["page"]) if pd.notna(g)}
        tables = first[first["kind"] == "table"].sort_values(["doc_id", "order"], kind="stable")
        self.tables = {d: g["passage_id"].tolist() for d, g in tables.groupby("doc_id")}

    def scores(self, structure: dict | None, source: str, em: float,
               context_ids: Iterable[str]) -> dict[str, float]:
        """``struct_em``, ``page_hit`` and ``table_hit`` of one question."""
        if not structure:
            return dict.fromkeys(STRUCTURE_METRICS, np.nan)
        doc = f"{source}/{structure['file']}"
        seen = set(context_ids)
        page, table = structure.get("page"), structure.get("table")
        page_hit = np.nan if page is None else float(
            any(self.page_of.get(p) == (doc, int(page)) for p in seen))
        tables = self.tables.get(doc, [])
        table_hit = np.nan if table is None else float(
            0 < table <= len(tables) and tables[table - 1] in seen)
        return {"struct_em": em, "page_hit": page_hit, "table_hit": table_hit}
