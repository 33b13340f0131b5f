"""HTML (BeautifulSoup): headings ``h1``-``h6``, paragraphs (``p``, list items, ``pre``,
``blockquote``, definition terms) and tables (``tr`` rows of ``th``/``td`` cells), in document
order; scripts, styles and navigation left out. No pages. The title is ``<title>``, else the
first ``h1``."""
from __future__ import annotations

from pathlib import Path

from kgp_kedro.corpus.sources.formats.base import (FILE_READERS, Block, FileContent, FileReader,
                                                   FileReadError, clean_rows, markdown_table)

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_PARAGRAPHS = ("p", "li", "pre", "blockquote", "dt", "dd", "caption")
_DROPPED = ("script", "style", "noscript", "nav", "template")


def _text(element) -> str:
    return " ".join(element.get_text(" ", strip=True).split())


def html_blocks(markup: bytes | str) -> tuple[list[Block], str | None]:
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
        try:
            blocks, title = html_blocks(path.read_bytes())
        except (ValueError, AssertionError, RecursionError) as exc:  # malformed beyond repair
            raise FileReadError(path, f"cannot parse HTML ({type(exc).__name__}: {exc})") from exc
        return FileContent(blocks, title=title)
