"""The file-reader interface: a file in, its blocks in reading order out.

A block is one paragraph of text, one heading or one table (its cells and their markdown,
paper §3: "the feature of table nodes is the markdown"); a block of a paged format (PDF) keeps
its 1-based page and its position on the page (``x0, top, x1, bottom`` in points). A format is
one module with a :class:`FileReader` subclass registered under its name with its
``suffixes``; :func:`read_file` picks it by extension.
"""
from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import ClassVar

from kgp_kedro.plumbing.registry import Registry

BLOCK_KINDS = ("text", "heading", "table")


class FileReadError(ValueError):
    """A file (or one of its pages) that cannot be read: encrypted, corrupt, truncated."""

    def __init__(self, path: str | Path, reason: str, page: int | None = None) -> None:
        self.path, self.reason, self.page = str(path), reason, page
        where = f"page {page}: " if page is not None else ""
        super().__init__(f"{self.path}: {where}{reason}")


@dataclass(frozen=True)
class Block:
    """One paragraph, heading or table of a file, in reading order."""

    kind: str                      # text | heading | table
    text: str                      # the paragraph, the heading, or the table's markdown
    page: int | None = None        # 1-based page of a paged format (PDF), else None
    bbox: tuple[float, float, float, float] | None = None  # x0, top, x1, bottom (points)
    rows: list[list[str]] | None = None  # a table's cells, header row first
    level: int | None = None       # a heading's level (1 = top)

    def __post_init__(self) -> None:
        if self.kind not in BLOCK_KINDS:
            raise ValueError(f"block kind {self.kind!r} is not one of {BLOCK_KINDS}")


@dataclass(frozen=True)
class PageProblem:
    """A page that gave no text: ``no_text_layer`` (a scanned image, say) or ``unreadable``
    (the extractor failed on it), with the reason."""

    page: int
    kind: str
    reason: str


@dataclass
class FileContent:
    """What a reader got from one file."""

    blocks: list[Block]
    pages: int | None = None        # page count of a paged format
    title: str | None = None        # the file's own title (metadata, <title>, first heading)
    problems: list[PageProblem] = field(default_factory=list)
    source_text: str | None = None  # a plain format's own text (text, Markdown)

    @property
    def text(self) -> str:
        """The document text: a plain format's own text, else the blocks' text, one blank
        line between blocks (a table as its markdown)."""
        if self.source_text is not None:
            return self.source_text
        return "\n\n".join(b.text for b in self.blocks if b.text.strip())

    def layout_json(self) -> str:
        """The blocks as the JSON list stored in the documents table's ``layout`` column."""
        return json.dumps([{k: v for k, v in asdict(b).items() if v is not None}
                           for b in self.blocks], ensure_ascii=False)


def blocks_from_json(layout: str) -> list[Block]:
    """The blocks of a ``layout`` JSON string (:meth:`FileContent.layout_json`)."""
    return [Block(**{**item, "bbox": tuple(item["bbox"]) if "bbox" in item else None})
            for item in json.loads(layout)]


_SEPARATOR = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+$")
_CELL = re.compile(r"(?<!\\)\|")


def _cell(value: object) -> str:
    return " ".join(str(value).split()) if value is not None else ""


def markdown_table(rows: list[list[object]]) -> str:
    """A table's rows as a markdown pipe table, the first row as header (``None`` cells empty,
    whitespace collapsed, ``|`` escaped); short rows padded to the widest."""
    cells = [[_cell(c).replace("|", "\\|") for c in row] for row in rows]
    cells = [row for row in cells if any(row)]
    if not cells:
        return ""
    width = max(len(row) for row in cells)
    cells = [row + [""] * (width - len(row)) for row in cells]
    lines = ["| " + " | ".join(cells[0]) + " |", "| " + " | ".join(["---"] * width) + " |"]
    lines.extend("| " + " | ".join(row) + " |" for row in cells[1:])
    return "\n".join(lines)


def table_rows(text: str) -> list[list[str]] | None:
    """A markdown pipe table's rows (:func:`markdown_table`'s form read back), the header
    first (its ``---`` line dropped, ``\\|`` unescaped); None when ``text`` is not such a
    table."""
    lines = [line.strip() for line in text.strip().splitlines()]
    if len(lines) < 2 or not _SEPARATOR.match(lines[1].replace(" ", "")) \
            or not all(line.startswith("|") and line.endswith("|") for line in lines):
        return None
    return [[cell.strip().replace("\\|", "|") for cell in _CELL.split(line[1:-1])]
            for i, line in enumerate(lines) if i != 1]


def clean_rows(rows: list[list[object]]) -> list[list[str]]:
    """A table's cells as strings (whitespace collapsed), rows without any text dropped."""
    out = [[_cell(c) for c in row] for row in rows]
    return [row for row in out if any(row)]


class FileReader(ABC):
    name: ClassVar[str]
    suffixes: ClassVar[tuple[str, ...]]

    @abstractmethod
    def read(self, path: Path) -> FileContent:
        """The file's blocks; :class:`FileReadError` when the file cannot be read at all."""


FILE_READERS: Registry[FileReader] = Registry("file reader", "kgp_kedro.corpus.sources.formats")


def supported_suffixes() -> tuple[str, ...]:
    """Every extension a registered reader reads (lower case, with the dot)."""
    return tuple(s for name in FILE_READERS.names() for s in FILE_READERS.get(name).suffixes)


def reader_for(path: Path) -> FileReader | None:
    """The reader of ``path``'s extension, or None."""
    suffix = path.suffix.lower()
    for name in FILE_READERS.names():
        cls = FILE_READERS.get(name)
        if suffix in cls.suffixes:
            return cls()
    return None


def read_file(path: Path) -> FileContent:
    """``path`` read by the reader of its extension."""
    reader = reader_for(path)
    if reader is None:
        raise FileReadError(path, f"unsupported file type {path.suffix.lower() or '(none)'}")
    return reader.read(path)
