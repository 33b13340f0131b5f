"""HTML (BeautifulSoup): headings ``h1``-``h6``, paragraphs (``p``, list items, ``pre``,
``blockquote``, definition terms) and tables (``tr`` rows of ``th``/``td`` cells), in document
order; scripts, styles and navigation left out. No pages. The title is ``<title>``, else the
first ``h1``. The bytes are decoded by their byte-order mark, else the page's declared charset,
else as UTF-8, else as Windows-1252 (:mod:`.encoding`); a page none of these decodes raises
:class:`FileReadError`."""
from __future__ import annotations

import codecs
from pathlib import Path

from kgp_kedro.corpus.sources.formats.base import (FILE_READERS, Block, FileContent, FileReader,
                                                   FileReadError, clean_rows, markdown_table)
from kgp_kedro.corpus.sources.formats.encoding import BYTE_ORDER_MARKS, decode_text

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_PARAGRAPHS = ("p", "li", "pre", "blockquote", "dt", "dd", "caption")
_DROPPED = ("script", "style", "noscript", "nav", "template")
_READ_AS_UNDECLARED = ("ascii", "iso8859-1", "cp1252")   # codecs.lookup() names


def _text(element) -> str:
    return " ".join(element.get_text(" ", strip=True).split())


def decode_html(path: Path, data: bytes) -> str:
    """The markup of an HTML file's bytes: a byte-order mark first, then the charset the page
    declares (``<meta charset>``), then :func:`~.encoding.decode_text`'s UTF-8 or
    Windows-1252. A declared ASCII or Latin-1 is read as those two are (browsers read both as
    Windows-1252, and a UTF-8 page declaring Latin-1 is a common slip)."""
    from bs4.dammit import EncodingDetector

    declared = EncodingDetector.find_declared_encoding(data, is_html=True)
    if declared and not any(data.startswith(mark) for mark, _ in BYTE_ORDER_MARKS):
        try:
            if codecs.lookup(declared).name not in _READ_AS_UNDECLARED:
                return data.decode(declared)
        except (LookupError, UnicodeDecodeError):
            pass   # a wrong or unknown declaration: decoded as if there were none
    return decode_text(path, data)


def html_blocks(markup: str) -> tuple[list[Block], str | None]:
    """The blocks of an HTML page and its title."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    for dropped in soup.find_all(_DROPPED):
        dropped.decompose()
    title = _text(soup.title) if soup.title else None
    root = soup.body or soup
    blocks: list[Block] = []
    taken: set[int] = set()
    for element in root.find_all([*_HEADINGS, *_PARAGRAPHS, "table"]):
        if any(id(parent) in taken for parent in element.parents):
            continue   # inside a table or a paragraph already read
        taken.add(id(element))
        if element.name == "table":
            rows = clean_rows([[_text(cell) for cell in row.find_all(["th", "td"])]
                               for row in element.find_all("tr")])
            if rows:
                blocks.append(Block("table", markdown_table(rows), rows=rows))
        elif element.name in _HEADINGS:
            if text := _text(element):
                blocks.append(Block("heading", text, level=int(element.name[1])))
        elif element.name != "caption" and (text := _text(element)):
            blocks.append(Block("text", text))
    if not title:
        title = next((b.text for b in blocks if b.kind == "heading" and b.level == 1), None)
    return blocks, title or None


@FILE_READERS.register("html")
class HtmlReader(FileReader):
    suffixes = (".html", ".htm")

    def read(self, path: Path) -> FileContent:
        markup = decode_html(path, path.read_bytes())
        try:
            blocks, title = html_blocks(markup)
        except (ValueError, AssertionError, RecursionError) as exc:  # malformed beyond repair
            raise FileReadError(path, f"cannot parse HTML ({type(exc).__name__}: {exc})") from exc
        return FileContent(blocks, title=title)
