"""A table passage shown to the reader as facts (issue 49): a markdown pipe table (the PDF,
DOCX and HTML readers' form) becomes one ``subject — relation — object`` line a row under its
caption, and rows that chain (one row's last cell the first cell of another: A father B; B
father C) are joined into one line, so a two-row question reads as one fact. With
``compose``, each chain is also said as one fact of its own, ``A — r2 of the r1 — C``
("place of death of the composer"), a pair of kinship relations under the one English word
for it first ("paternal grandfather (father of the father)", :data:`KINSHIP`). Other text is
returned as it is."""
from __future__ import annotations

from kgp_kedro.corpus.sources.formats.base import table_rows

DASH = " — "
# two kinship relations English says with one word: A's father's father is A's paternal
# grandfather.
# The words of 2WikiMultihopQA's inference rules; a step- or in-law relation is what the two
# rows compose, not a claim that no closer tie exists (the parenthesized chain says so).
KINSHIP = {
    ("father", "father"): "paternal grandfather", ("father", "mother"): "paternal grandmother",
    ("mother", "father"): "maternal grandfather", ("mother", "mother"): "maternal grandmother",
    ("spouse", "father"): "father-in-law", ("spouse", "mother"): "mother-in-law",
    ("father", "spouse"): "stepmother", ("mother", "spouse"): "stepfather",
    ("spouse", "child"): "stepchild", ("child", "child"): "grandchild",
    ("child", "spouse"): "child-in-law", ("sibling", "child"): "nephew or niece",
    ("father", "sibling"): "paternal uncle or aunt", ("mother", "sibling"): "maternal uncle or aunt",
}


def _chains(rows: list[list[str]]) -> list[list[str]]:
    """Each pair of rows (3+ cells) where the first's last cell, a subject of its own row,
    is the second's first cell, joined: ``[A, r1, B, r2, C]``."""
    return [first + second[1:] for first in rows for second in rows
            if first is not second and len(first) >= 3 and len(second) >= 3
            and first[-1] and first[-1].casefold() == second[0].casefold()]


def composed(chain: list[str]) -> str:
    """A chain ``[A, r1, B, r2, C]`` said as one fact ``A — r2 of the r1 — C``, the kinship
    word first when the two relations have one (:data:`KINSHIP`)."""
    first, second = chain[1], chain[3]
    relation = f"{second} of the {first}"
    word = KINSHIP.get((first.casefold(), second.casefold()))
    return DASH.join([chain[0], f"{word} ({relation})" if word else relation, chain[-1]])


def as_facts(text: str, caption: str | None = None, compose: bool = False) -> str:
    """``text`` read as facts when it is a markdown table (module docstring): a first line
    naming the table (``caption``, the heading above it, when known) and its columns, then a
    line a row (a two-column table's rows after the caption as their subject), then the
    chained rows, then (``compose``) each chain as one fact (:func:`composed`)."""
    rows = table_rows(text)
    if rows is None:
        return text
    header, body = rows[0], [row for row in rows[1:] if any(row)]
    if len(header) == 2 and caption:
        body = [[caption, *row] for row in body]
    lines = [f"Table{f' {caption}' if caption else ''} ({DASH.join(header)}), as facts:"]
    lines += [DASH.join(cell for cell in row if cell) for row in body]
    chains = _chains(body)
    lines += [DASH.join(chain) for chain in chains]
    if compose:
        lines += [composed(chain) for chain in chains if len(chain) == 5 and all(chain)]
    return "\n".join(lines)
