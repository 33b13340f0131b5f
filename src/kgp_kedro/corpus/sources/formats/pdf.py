"""PDF (pdfplumber, over pdfminer.six): per page, the ruled tables (``find_tables``) as
markdown with their position, and the text outside them as paragraphs in reading order (lines
top to bottom, a paragraph broken at a vertical gap or a change of font size; a line set in a
font clearly larger than the page's body text is a heading). Tables and paragraphs are merged
by their top edge.

A page with no characters is reported, not read as empty: ``no_text_layer`` (an image without
text, i.e. a scan: there is no OCR here) or a blank page; a page the extractor fails on is
``unreadable``, and the other pages are kept. A file that cannot be opened (encrypted with a
password, not a PDF, truncated beyond repair) or whose every page fails raises
:class:`FileReadError` naming the file (and the page)."""
from __future__ import annotations

import logging
import statistics
from pathlib import Path

from kgp_kedro.corpus.sources.formats.base import (FILE_READERS, Block, FileContent, FileReader,
                                                   FileReadError, PageProblem, clean_rows,
                                                   markdown_table)

logger = logging.getLogger(__name__)

HEADING_SIZE_RATIO = 1.15   # a line this much larger than the body font is a heading
PARAGRAPH_GAP = 0.6         # a gap above a line over this share of the line height breaks


def _inside(obj: dict, boxes: list[tuple[float, float, float, float]]) -> bool:
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)


def _line_size(line: dict) -> float:
    sizes = [c.get("size", 0.0) for c in line.get("chars", []) if c.get("text", "").strip()]
    return statistics.median(sizes) if sizes else 0.0


def _paragraphs(lines: list[dict], page_number: int) -> list[Block]:
    """Lines grouped into text and heading blocks."""
    if not lines:
        return []
    sizes = [s for s in (_line_size(line) for line in lines) if s > 0]
    body = statistics.mode(round(s, 1) for s in sizes) if sizes else 0.0
    blocks: list[Block] = []
    group: list[dict] = []
    group_heading = False

    def flush() -> None:
        if not group:
            return
        text = " ".join(" ".join(line["text"].split()) for line in group).strip()
        if text:
            box = (min(g["x0"] for g in group), min(g["top"] for g in group),
                   max(g["x1"] for g in group), max(g["bottom"] for g in group))
            blocks.append(Block("heading" if group_heading else "text", text, page_number,
                                box, level=1 if group_heading else None))
        group.clear()

    for line in lines:
        heading = body > 0 and _line_size(line) >= HEADING_SIZE_RATIO * body
        if group:
            previous = group[-1]
            height = max(previous["bottom"] - previous["top"], 1.0)
            if line["top"] - previous["bottom"] > PARAGRAPH_GAP * height \
                    or heading != group_heading:
                flush()
        if not group:
            group_heading = heading
        group.append(line)
    flush()
    return blocks


def _page_blocks(page, number: int) -> tuple[list[Block], PageProblem | None]:
    if not page.chars:
        if page.images:
            return [], PageProblem(number, "no_text_layer", f"page {number}: no text layer "
                                   f"({len(page.images)} image(s), a scan?): not read, no OCR")
        return [], PageProblem(number, "no_text_layer", f"page {number}: blank page, no text")
    tables = page.find_tables()
    boxes = [t.bbox for t in tables]
    table_blocks = []
    for table in tables:
        rows = clean_rows(table.extract())
        if rows:
            table_blocks.append(Block("table", markdown_table(rows), number, tuple(table.bbox),
                                      rows=rows))
    text_page = page.filter(lambda obj: obj.get("object_type") != "char"
                            or not _inside(obj, boxes)) if boxes else page
    lines = text_page.extract_text_lines(strip=True, return_chars=True)
    blocks = _paragraphs(lines, number) + table_blocks
    if not blocks:
        return [], PageProblem(number, "no_text_layer", f"page {number}: {len(page.chars)} "
                               "characters but no readable text (unmapped glyphs?)")
    blocks.sort(key=lambda b: (b.bbox[1], b.bbox[0]))
    return blocks, None


def _open_error(path: Path, exc: Exception) -> FileReadError:
    name = type(exc).__name__
    cause = exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc
    message = f"{type(cause).__name__}: {cause}".strip()
    if "Password" in name or "Password" in type(cause).__name__ or "Encrypt" in message:
        return FileReadError(path, f"encrypted PDF, a password is needed ({message})")
    return FileReadError(path, f"cannot open PDF (corrupt, truncated or not a PDF: {message})")


@FILE_READERS.register("pdf")
class PdfReader(FileReader):
    suffixes = (".pdf",)

    def read(self, path: Path) -> FileContent:
        import pdfplumber

        try:
            pdf = pdfplumber.open(str(path))
            pages = list(pdf.pages)
        except Exception as exc:  # pdfminer raises many types for a bad file
            raise _open_error(path, exc) from exc
        with pdf:
            blocks: list[Block] = []
            problems: list[PageProblem] = []
            for number, page in enumerate(pages, start=1):
                try:
                    found, problem = _page_blocks(page, number)
                except Exception as exc:  # a damaged page; the others are still read
                    found, problem = [], PageProblem(
                        number, "unreadable", f"page {number}: {type(exc).__name__}: {exc}")
                finally:
                    page.close()
                blocks.extend(found)
                if problem is not None:
                    problems.append(problem)
            unreadable = [p for p in problems if p.kind == "unreadable"]
            if pages and len(unreadable) == len(pages):
                raise FileReadError(path, unreadable[0].reason.split(": ", 1)[1],
                                    unreadable[0].page)
            if not pages:
                raise FileReadError(path, "the PDF has no pages")
            title = (pdf.metadata or {}).get("Title")
            title = title.strip() if isinstance(title, str) and title.strip() else None
            return FileContent(blocks, pages=len(pages), title=title, problems=problems)
