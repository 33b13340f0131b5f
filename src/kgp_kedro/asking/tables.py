"""A table passage shown to the reader as facts: a markdown pipe table (the PDF, DOCX and HTML
readers' form) becomes one line a row, its cells joined by :data:`DASH`, under a first line
naming the table and its columns. Other text is returned as it is."""
from __future__ import annotations

from kgp_kedro.corpus.sources.formats.base import table_rows

DASH = " — "


def as_facts(text: str, caption: str | None = None) -> str:
    """``text`` read as facts when it is a markdown table (module docstring): a first line
    naming the table (``caption``, the heading above it, when known) and its columns, then a
    line a row (a two-column table's rows after the caption as their subject)."""
    rows = table_rows(text)
    if rows is None:
        return text
    header, body = rows[0], [row for row in rows[1:] if any(row)]
    if len(header) == 2 and caption:
        body = [[caption, *row] for row in body]
    lines = [f"Table{f' {caption}' if caption else ''} ({DASH.join(header)}), as facts:"]
    lines += [DASH.join(cell for cell in row if cell) for row in body]
    return "\n".join(lines)
