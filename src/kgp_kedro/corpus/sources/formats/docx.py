"""DOCX (python-docx): paragraphs, headings (styles ``Title`` and ``Heading N``) and tables, in
body order. A DOCX file holds no laid-out pages; where it has hard page breaks
(``<w:br w:type="page"/>``, a paragraph's ``page_break_before``) the blocks are numbered by
them (page 1 before the first break), else they have no page. The title is the core property,
else the first ``Title`` or level-1 heading."""
from __future__ import annotations

import zipfile
from pathlib import Path

from kgp_kedro.corpus.sources.formats.base import (FILE_READERS, Block, FileContent, FileReader,
                                                   FileReadError, clean_rows, markdown_table)

_BREAK = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}br"
_TYPE = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}type"


def _heading_level(style_name: str) -> int | None:
    if style_name == "Title":
        return 1
    if style_name.startswith("Heading "):
        tail = style_name.removeprefix("Heading ").strip()
        return int(tail) if tail.isdigit() else None
    return None


def _page_breaks(paragraph) -> tuple[bool, int]:
    """Whether a page break comes before the paragraph's text, and how many come in or after
    it."""
    before = bool(paragraph.paragraph_format.page_break_before)
    after = 0
    seen_text = False
    for element in paragraph._p.iter():
        if element.tag == _BREAK and element.get(_TYPE) == "page":
            if seen_text:
                after += 1
            else:
                before = True
        elif element.tag.endswith("}t") and (element.text or "").strip():
            seen_text = True
    return before, after


def docx_blocks(path: Path) -> tuple[list[Block], str | None]:
    import docx
    from docx.table import Table

    document = docx.Document(str(path))
    items: list[tuple[Block | None, bool, int]] = []   # block, break before, breaks after
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            rows = clean_rows([[cell.text for cell in row.cells] for row in item.rows])
            # merged cells repeat in python-docx: keep one of each run of equal cells
            rows = [[c for i, c in enumerate(row) if i == 0 or c != row[i - 1]] for row in rows]
            items.append((Block("table", markdown_table(rows), rows=rows) if rows else None,
                          False, 0))
            continue
        before, after = _page_breaks(item)
        text = " ".join(item.text.split())
        level = _heading_level(item.style.name if item.style is not None else "")
        block = (Block("heading" if level else "text", text, level=level) if text else None)
        items.append((block, before, after))
    paged = any(before or after for _, before, after in items)
    page, blocks = 1, []
    for block, before, after in items:
        if before and blocks:
            page += 1
        if block is not None:
            blocks.append(Block(block.kind, block.text, page if paged else None,
                                rows=block.rows, level=block.level))
        page += after
    title = (document.core_properties.title or "").strip() or next(
        (b.text for b in blocks if b.kind == "heading" and b.level == 1), None)
    return blocks, title


@FILE_READERS.register("docx")
class DocxReader(FileReader):
    suffixes = (".docx",)

    def read(self, path: Path) -> FileContent:
        from docx.opc.exceptions import PackageNotFoundError

        try:
            blocks, title = docx_blocks(path)
        except (zipfile.BadZipFile, PackageNotFoundError) as exc:
            raise FileReadError(path, "not a DOCX package (encrypted, corrupt or another format)"
                                f": {exc}") from exc
        except (KeyError, ValueError, OSError) as exc:
            raise FileReadError(path, f"cannot read DOCX ({type(exc).__name__}: {exc})") from exc
        pages = max((b.page for b in blocks if b.page is not None), default=None)
        return FileContent(blocks, pages=pages, title=title)
