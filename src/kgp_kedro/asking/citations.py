"""Where a passage lies in its file (file name, PDF page, the heading above it) and the
citations of a reply checked against the quotes its prompt held."""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from kgp_kedro.ewek.composer import parse_citations


@dataclass(frozen=True)
class Located:
    """A passage's place: its file (relative to the folder), page (a paged format) and the
    nearest heading before it in its file (a format with headings; a heading passage's own
    text), its text and its kind (``passage``, ``heading``, ``table``)."""

    passage_id: str
    file: str
    page: int | None
    heading: str | None
    text: str
    kind: str = "passage"


def _page(value) -> int | None:
    if value is None or (isinstance(value, float) and math.isnan(value)) or pd.isna(value):
        return None
    return int(value)


def locate_passages(passages: pd.DataFrame) -> dict[str, Located]:
    """``passage_id -> Located`` for every passage: the file is the document id less its
    source (``documents/report.pdf`` -> ``report.pdf``); the heading is the text of the last
    ``heading`` passage before it in its document (reading order)."""
    located: dict[str, Located] = {}
    for _, rows in passages.sort_values(["doc_id", "order"]).groupby("doc_id", sort=False):
        heading = None
        for row in rows.itertuples(index=False):
            if row.kind == "heading":
                heading = " ".join(str(row.text).split())
            file = str(row.doc_id).split("/", 1)[-1]
            located[row.passage_id] = Located(row.passage_id, file, _page(row.page), heading,
                                              str(row.text), str(row.kind))
    return located


def source_label(place: Located) -> str:
    """``report.pdf, p. 3``; ``notes.md, § Results`` where the format has no pages; the file
    alone where it has neither."""
    if place.page is not None:
        return f"{place.file}, p. {place.page}"
    if place.heading:
        return f"{place.file}, § {place.heading}"
    return place.file


def check_citations(reply: str, n_quotes: int) -> tuple[list[int], list[int]]:
    """``(kept, dropped)`` of the numbers ``reply`` cites (``[n]``, ``[n, m]``; distinct, in
    order): a number that names none of the prompt's ``n_quotes`` quotes is dropped."""
    cited = parse_citations(reply)
    return ([n for n in cited if 1 <= n <= n_quotes],
            [n for n in cited if not 1 <= n <= n_quotes])
