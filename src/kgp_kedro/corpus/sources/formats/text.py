"""Plain text and Markdown: blank-line paragraphs; Markdown's ATX headings (``#`` to ``######``)
and pipe tables become heading and table blocks. Neither format has pages. The bytes are
decoded by their byte-order mark, else as UTF-8, else as Windows-1252 (:mod:`.encoding`); bytes
that are none of these raise :class:`~kgp_kedro.corpus.sources.formats.FileReadError` naming
the file. The document text is the file's own text (Markdown markup kept)."""
from __future__ import annotations

import re
from pathlib import Path

from kgp_kedro.corpus.sources.formats.base import (FILE_READERS, Block, FileContent, FileReader,
                                                   clean_rows, markdown_table)
from kgp_kedro.corpus.sources.formats.encoding import decode_text

_BLANK_LINE = re.compile(r"\n\s*\n")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _row(line: str) -> list[str]:
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)]


def markdown_blocks(text: str) -> list[Block]:
    """Headings, pipe tables (a header line, a ``---`` rule, rows) and paragraphs of a
    Markdown text, in order."""
    blocks: list[Block] = []
    for chunk in _BLANK_LINE.split(text):
        lines = [line for line in chunk.splitlines() if line.strip()]
        paragraph: list[str] = []

        def flush() -> None:
            if paragraph:
                blocks.append(Block("text", " ".join(s.strip() for s in paragraph)))
                paragraph.clear()

        i = 0
        while i < len(lines):
            heading = _HEADING.match(lines[i])
            if heading:
                flush()
                blocks.append(Block("heading", heading.group(2), level=len(heading.group(1))))
                i += 1
            elif ("|" in lines[i] and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1])):
                flush()
                rows = [_row(lines[i])]
                i += 2
                while i < len(lines) and "|" in lines[i] and not _HEADING.match(lines[i]):
                    rows.append(_row(lines[i]))
                    i += 1
                cells = clean_rows(rows)
                blocks.append(Block("table", markdown_table(cells), rows=cells))
            else:
                paragraph.append(lines[i])
                i += 1
        flush()
    return blocks


@FILE_READERS.register("text")
class TextReader(FileReader):
    suffixes = (".txt",)

    def read(self, path: Path) -> FileContent:
        text = decode_text(path, path.read_bytes())
        return FileContent([Block("text", p.strip()) for p in _BLANK_LINE.split(text)
                            if p.strip()], source_text=text)


@FILE_READERS.register("markdown")
class MarkdownReader(FileReader):
    suffixes = (".md", ".markdown")

    def read(self, path: Path) -> FileContent:
        text = decode_text(path, path.read_bytes())
        blocks = markdown_blocks(text)
        title = next((b.text for b in blocks if b.kind == "heading" and b.level == 1), None)
        return FileContent(blocks, title=title, source_text=text)
