"""PDF: the text from PDFium (pypdfium2), the ruled tables from pdfplumber (over pdfminer.six).

Per page, the ruled tables (pdfplumber's ``find_tables``, on pages that draw any path) become
markdown with their position, their cells read by PDFium; the text outside them becomes
paragraphs in the order the file draws it (PDFium's order, which keeps each column of a
two-column page whole), lines grouped into a paragraph until a vertical gap, a jump to another
column, or a change of font size; a line set in a font clearly larger than the page's body
text is a heading. A table goes before the first paragraph below it in its column.

PDFium maps glyphs through the font's own encoding where the file has no ``ToUnicode`` map (a
LaTeX font's ``fi``, ``⟨``, ``≤``), so no ``(cid:N)`` comes out; a glyph it cannot map is left
out. Ligature code points (``ﬁ``, ``ﬂ``, ...) are spelled out, and a word hyphenated at a line
end is joined (``manu-``/``al``: ``manual``) unless the file writes the hyphenated form
elsewhere (``camera-ready``).

A page with no characters is reported, not read as empty: ``no_text_layer`` (an image without
text, i.e. a scan: there is no OCR here) or a blank page; a page the extractor fails on is
``unreadable``, and the other pages are kept. A file that cannot be opened (encrypted with a
password, not a PDF, truncated beyond repair) or whose every page fails raises
:class:`FileReadError` naming the file (and the page). PDFium is not thread-safe: a process
reads one PDF at a time (:data:`PDFIUM_LOCK`; a Dask cluster's workers are processes)."""
from __future__ import annotations

import ctypes
import dataclasses
import math
import re
import statistics
import threading
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from kgp_kedro.corpus.sources.formats.base import (FILE_READERS, Block, FileContent, FileReader,
                                                   FileReadError, PageProblem, clean_rows,
                                                   markdown_table)

HEADING_SIZE_RATIO = 1.15   # a line this much larger than the body font is a heading
PARAGRAPH_GAP = 0.6         # a gap above a line over this share of the line height breaks
WORD_GAP = 0.15             # a gap between glyphs over this share of the font size is a space
LINE_END_HYPHEN = "\ufffe"  # a hyphen ending a line inside a word (PDFium's text marks it so)
LIGATURES = {code: unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_HYPHENATED = re.compile(rf"(\w+){LINE_END_HYPHEN}(\w+)")
_COMPOUND = re.compile(r"\w+(?:-\w+)+")

PDFIUM_LOCK = threading.Lock()   # PDFium is not thread-safe: one file at a time in a process
Box = tuple[float, float, float, float]   # x0, top, x1, bottom: points from the top left


@dataclass(frozen=True)
class _Glyph:
    """One character PDFium read: its box and font size, or no box for a space or a line
    break (``\\n``) PDFium inserted."""

    text: str
    box: Box | None = None
    size: float = 0.0


@dataclass
class _Line:
    """One line of text with its box and font size (the median over its glyphs)."""

    text: str
    box: Box
    size: float


def clean_text(text: str) -> str:
    """``text`` with ligatures spelled out and control characters removed."""
    return _CONTROL.sub("", text.translate(LIGATURES))


def _glyph_size(text_page, index: int, matrix) -> float:
    """The glyph's font size on the page: its font size scaled by its text matrix."""
    import pypdfium2.raw as pdfium_c

    pdfium_c.FPDFText_GetMatrix(text_page.raw, index, ctypes.byref(matrix))
    return pdfium_c.FPDFText_GetFontSize(text_page.raw, index) * math.hypot(matrix.c, matrix.d)


def page_glyphs(text_page, origin: tuple[float, float]) -> list[_Glyph]:
    """The characters of a PDFium text page in the order the file draws them, a line break
    where PDFium ends a line, a hyphen it finds ending a line inside a word marked
    :data:`LINE_END_HYPHEN`, glyphs it cannot map to Unicode left out. ``origin``: the page's
    left and top edges in PDF coordinates, so that boxes are measured from the top left like
    pdfplumber's."""
    import pypdfium2.raw as pdfium_c

    left, top = origin
    matrix = pdfium_c.FS_MATRIX()
    glyphs: list[_Glyph] = []
    for index in range(text_page.count_chars()):
        code = pdfium_c.FPDFText_GetUnicode(text_page.raw, index)
        if pdfium_c.FPDFText_IsGenerated(text_page.raw, index):
            if code != 0x0D:   # PDFium ends a line with \r\n
                glyphs.append(_Glyph("\n" if code == 0x0A else chr(code)))
        elif not pdfium_c.FPDFText_HasUnicodeMapError(text_page.raw, index):
            x0, bottom, x1, up = text_page.get_charbox(index, loose=True)
            hyphen = pdfium_c.FPDFText_IsHyphen(text_page.raw, index)
            glyphs.append(_Glyph(LINE_END_HYPHEN if hyphen else chr(code),
                                 (x0 - left, top - up, x1 - left, top - bottom),
                                 _glyph_size(text_page, index, matrix)))
            if hyphen:   # PDFium ends no line after it
                glyphs.append(_Glyph("\n"))
    return glyphs


def _inside(box: Box, outer: Box) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return outer[0] <= x <= outer[2] and outer[1] <= y <= outer[3]


Cell = tuple[int, int, int]   # a table's index on the page, a row's, a column's


def _cell_of(box: Box, tables: list) -> Cell | None:
    """The cell holding the middle of ``box`` (row and column -1 inside a table but in no
    cell), or None outside every table."""
    for t, table in enumerate(tables):
        if _inside(box, table.bbox):
            return next(((t, r, c) for r, row in enumerate(table.rows)
                         for c, cell in enumerate(row.cells)
                         if cell is not None and _inside(box, cell)), (t, -1, -1))
    return None


def _homes(glyphs: list[_Glyph], tables: list) -> list[Cell | None]:
    """Where each glyph goes: a table cell, or the text (None); a space or line break PDFium
    inserted goes with the glyph before it."""
    homes: list[Cell | None] = []
    home = None
    for glyph in glyphs:
        if glyph.box is not None:
            home = _cell_of(glyph.box, tables) if tables else None
        homes.append(home)
    return homes


def _split(glyphs: list[_Glyph], tables: list) -> tuple[list[_Glyph], dict[Cell, list[_Glyph]]]:
    """The glyphs of the text, and those of each table cell; a glyph inside a table but in
    none of its cells is left out."""
    texts: list[_Glyph] = []
    cells: dict[Cell, list[_Glyph]] = defaultdict(list)
    for glyph, home in zip(glyphs, _homes(glyphs, tables)):
        if home is None:
            texts.append(glyph)
        elif home[1] >= 0:
            cells[home].append(glyph)
    return texts, cells


def _spelled(glyphs: list[_Glyph]) -> str:
    """The glyphs' text, a space put between two glyphs of a line set apart by a word gap
    that the file draws with no space character."""
    chars: list[str] = []
    previous: _Glyph | None = None
    for glyph in glyphs:
        if glyph.box is not None and previous is not None and not glyph.text.isspace():
            gap = glyph.box[0] - previous.box[2]
            if WORD_GAP * max(glyph.size, previous.size) < gap < 3 * glyph.size:
                chars.append(" ")
        chars.append(glyph.text)
        previous = glyph if glyph.box is not None and not glyph.text.isspace() else None
    return "".join(chars)


def _line(glyphs: list[_Glyph]) -> _Line | None:
    text = " ".join(clean_text(_spelled(glyphs)).split())
    drawn = [g for g in glyphs if g.box is not None and not g.text.isspace()]
    if not text or not drawn:
        return None
    box = (min(g.box[0] for g in drawn), min(g.box[1] for g in drawn),
           max(g.box[2] for g in drawn), max(g.box[3] for g in drawn))
    return _Line(text, box, statistics.median(g.size for g in drawn))


def page_lines(glyphs: list[_Glyph]) -> list[_Line]:
    """The glyphs split into lines where PDFium ends a line."""
    lines: list[_Line] = []
    current: list[_Glyph] = []
    for glyph in [*glyphs, _Glyph("\n")]:
        if glyph.text != "\n":
            current.append(glyph)
        elif current:
            if line := _line(current):
                lines.append(line)
            current = []
    return lines


def _same_line(previous: _Line, line: _Line) -> bool:
    """Whether ``line`` continues ``previous`` on the same visual line: to its right, its
    middle within ``previous``'s height (a sub- or superscript, a formula's next piece)."""
    middle = (line.box[1] + line.box[3]) / 2
    return previous.box[1] <= middle <= previous.box[3] and line.box[0] >= previous.box[2] - 1


def visual_lines(lines: list[_Line]) -> list[_Line]:
    """The lines with each piece that continues the line before it merged into it (no space
    where the pieces touch)."""
    merged: list[_Line] = []
    for line in lines:
        if merged and _same_line(merged[-1], line):
            previous = merged[-1]
            touching = line.box[0] - previous.box[2] < 0.1 * max(previous.size, 1.0)
            box = (previous.box[0], min(previous.box[1], line.box[1]), line.box[2],
                   max(previous.box[3], line.box[3]))
            size = previous.size if len(previous.text) >= len(line.text) else line.size
            merged[-1] = _Line(previous.text + ("" if touching else " ") + line.text, box, size)
        else:
            merged.append(line)
    return merged


def _breaks(previous: _Line, line: _Line, heading: bool, group_heading: bool) -> bool:
    """Whether ``line`` starts a new paragraph after ``previous``: a gap above it, a line that
    is not below it or not under it (another column), or a heading's start or end."""
    height = max(previous.box[3] - previous.box[1], 1.0)
    gap = line.box[1] - previous.box[3]
    beside = line.box[0] > previous.box[2] or line.box[2] < previous.box[0]
    return gap > PARAGRAPH_GAP * height or gap < -height / 2 or beside \
        or heading != group_heading


def _joined(lines: list[_Line]) -> str:
    """The lines of a paragraph as one text, a line ending in a line-end hyphen joined to the
    next without a space; a hyphen after a letter ending a line, before a line starting in
    lower case, is marked as one too (:func:`resolve_hyphens` decides)."""
    text = lines[0].text
    for line in lines[1:]:
        if text.endswith("-") and text[-2:-1].isalpha() and line.text[:1].islower():
            text = text[:-1] + LINE_END_HYPHEN
        text += line.text if text.endswith(LINE_END_HYPHEN) else f" {line.text}"
    return text


def paragraphs(lines: list[_Line], page_number: int) -> list[Block]:
    """Lines grouped into text and heading blocks, in the lines' order."""
    sizes = [round(line.size, 1) for line in lines if line.size > 0]
    body = statistics.mode(sizes) if sizes else 0.0
    blocks: list[Block] = []
    group: list[_Line] = []
    group_heading = False

    def flush() -> None:
        if group:
            box = (min(g.box[0] for g in group), min(g.box[1] for g in group),
                   max(g.box[2] for g in group), max(g.box[3] for g in group))
            blocks.append(Block("heading" if group_heading else "text", _joined(group),
                                page_number, box, level=1 if group_heading else None))
            group.clear()

    for line in visual_lines(lines):
        heading = body > 0 and line.size >= HEADING_SIZE_RATIO * body
        if group and _breaks(group[-1], line, heading, group_heading):
            flush()
        if not group:
            group_heading = heading
        group.append(line)
    flush()
    return blocks


def cell_lines(glyphs: list[_Glyph]) -> list[_Line]:
    """A table cell's glyphs split into lines by their position (a file may draw a table row
    by row across its cells, so PDFium's line ends fall in the next cell)."""
    groups: list[list[_Glyph]] = []
    previous: _Glyph | None = None
    for glyph in glyphs:
        if glyph.box is None or glyph.text.isspace():
            if groups:
                groups[-1].append(_Glyph(" "))
            continue
        middle = (glyph.box[1] + glyph.box[3]) / 2
        if previous is None or not previous.box[1] <= middle <= previous.box[3]:
            groups.append([])
        groups[-1].append(glyph)
        previous = glyph
    return [line for group in groups if (line := _line(group))]


def _stacked(lines: list[list[_Line]]) -> bool:
    """Whether a row's cells hold several rows with no rule between them: two or more cells,
    each with the same number (over one) of lines, none a lower-case continuation of the line
    above (wrapped text)."""
    filled = [cell for cell in lines if cell]
    return len(filled) > 1 and len({len(cell) for cell in filled}) == 1 \
        and len(filled[0]) > 1 and not any(line.text[:1].islower()
                                           for cell in filled for line in cell[1:])


def _row_cells(lines: list[list[_Line]]) -> list[list[str]]:
    """One table row's cells (each a list of lines) as rows of cell texts: one row, or the
    rows stacked in it (:func:`_stacked`)."""
    if _stacked(lines):
        height = max(len(cell) for cell in lines)
        return [[cell[i].text if cell else "" for cell in lines] for i in range(height)]
    return [[_joined(cell) if cell else "" for cell in lines]]


def _table_blocks(tables: list, cells: dict[Cell, list[_Glyph]], number: int) -> list[Block]:
    """The page's ruled tables as table blocks, each cell the text of the glyphs in it."""
    blocks = []
    for t, table in enumerate(tables):
        rows = [texts for r, row in enumerate(table.rows) for texts in _row_cells(
            [cell_lines(cells.get((t, r, c), [])) for c in range(len(row.cells))])]
        rows = clean_rows([[text.replace(LINE_END_HYPHEN, "") for text in row] for row in rows])
        if rows:
            blocks.append(Block("table", markdown_table(rows), number, tuple(table.bbox),
                                rows=rows))
    return blocks


def _with_tables(texts: list[Block], tables: list[Block]) -> list[Block]:
    """Each table put before the first paragraph below its top in its column (else last)."""
    blocks = list(texts)
    for table in sorted(tables, key=lambda b: b.bbox[1]):
        x0, top, x1, _ = table.bbox
        at = next((i for i, b in enumerate(blocks) if b.kind != "table" and b.bbox[1] >= top
                   and b.bbox[0] < x1 and b.bbox[2] > x0), len(blocks))
        blocks.insert(at, table)
    return blocks


def _draws_paths(pdfium_page) -> bool:
    import pypdfium2.raw as pdfium_c

    return any(True for _ in pdfium_page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_PATH,)))


def _images(pdfium_page) -> int:
    import pypdfium2.raw as pdfium_c

    return sum(1 for _ in pdfium_page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)))


def page_blocks(plumber_page, pdfium_page, number: int
                ) -> tuple[list[Block], PageProblem | None]:
    """The blocks of one page (its text read by PDFium, its tables found by pdfplumber), or
    the problem that it has no text."""
    text_page = pdfium_page.get_textpage()
    try:
        if text_page.count_chars() == 0:
            if images := _images(pdfium_page):
                return [], PageProblem(number, "no_text_layer", f"page {number}: no text layer "
                                       f"({images} image(s), a scan?): not read, no OCR")
            return [], PageProblem(number, "no_text_layer", f"page {number}: blank page, no text")
        left, _, _, top = plumber_page.mediabox   # PDF coordinates, the page's own (inherited)
        glyphs = page_glyphs(text_page, (left, top))
        tables = plumber_page.find_tables() if _draws_paths(pdfium_page) else []
        texts, cells = _split(glyphs, tables)
        blocks = _with_tables(paragraphs(page_lines(texts), number),
                              _table_blocks(tables, cells, number))
        if not blocks:
            return [], PageProblem(number, "no_text_layer", f"page {number}: "
                                   f"{text_page.count_chars()} characters but no readable "
                                   "text (unmapped glyphs?)")
        return blocks, None
    finally:
        text_page.close()


def resolve_hyphens(blocks: list[Block]) -> list[Block]:
    """The blocks with each line-end hyphen inside a word dropped (``manu-``/``al``:
    ``manual``), or kept where the file writes that hyphenated word elsewhere."""
    compounds = {word for block in blocks for word in _COMPOUND.findall(block.text)}

    def join(match: re.Match) -> str:
        hyphenated = f"{match[1]}-{match[2]}"
        return hyphenated if hyphenated in compounds else match[1] + match[2]

    return [dataclasses.replace(block, text=_HYPHENATED.sub(join, block.text)
                                .replace(LINE_END_HYPHEN, "-"))
            if LINE_END_HYPHEN in block.text else block for block in blocks]


def _open_error(path: Path, exc: Exception) -> FileReadError:
    name = type(exc).__name__
    cause = exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc
    message = f"{type(cause).__name__}: {cause}".strip()
    if "Password" in name or "Password" in type(cause).__name__ or "Encrypt" in message \
            or "password" in message:
        return FileReadError(path, f"encrypted PDF, a password is needed ({message})")
    return FileReadError(path, f"cannot open PDF (corrupt, truncated or not a PDF: {message})")


def open_pdf(path: Path) -> tuple:
    """The file opened by pdfplumber and by PDFium, and its pdfplumber pages (close both
    documents when done); :class:`FileReadError` when either cannot open it."""
    import pdfplumber
    import pypdfium2 as pdfium

    try:
        plumber = pdfplumber.open(str(path))
        pages = list(plumber.pages)
    except Exception as exc:  # pdfminer raises many types for a bad file
        raise _open_error(path, exc) from exc
    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        plumber.close()
        raise _open_error(path, exc) from exc
    return plumber, document, pages


def _read_pages(plumber_pages, document) -> tuple[list[Block], list[PageProblem]]:
    blocks: list[Block] = []
    problems: list[PageProblem] = []
    for number, plumber_page in enumerate(plumber_pages, start=1):
        try:
            pdfium_page = document[number - 1]
            try:
                found, problem = page_blocks(plumber_page, pdfium_page, number)
            finally:
                pdfium_page.close()
        except Exception as exc:  # a damaged page; the others are still read
            found, problem = [], PageProblem(
                number, "unreadable", f"page {number}: {type(exc).__name__}: {exc}")
        finally:
            plumber_page.close()
        blocks.extend(found)
        if problem is not None:
            problems.append(problem)
    return resolve_hyphens(blocks), problems


@FILE_READERS.register("pdf")
class PdfReader(FileReader):
    suffixes = (".pdf",)

    def read(self, path: Path) -> FileContent:
        with PDFIUM_LOCK:
            plumber, document, pages = open_pdf(path)
            try:
                blocks, problems = _read_pages(pages, document)
                title = (plumber.metadata or {}).get("Title")
            finally:
                document.close()
                plumber.close()
        unreadable = [p for p in problems if p.kind == "unreadable"]
        if pages and len(unreadable) == len(pages):
            raise FileReadError(path, unreadable[0].reason.split(": ", 1)[1],
                                unreadable[0].page)
        if not pages:
            raise FileReadError(path, "the PDF has no pages")
        title = title.strip() if isinstance(title, str) and title.strip() else None
        return FileContent(blocks, pages=len(pages), title=title, problems=problems)
