"""Tiny PDF / DOCX / HTML files made in a test's tmp_path from real HotpotQA paragraphs."""
from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "01_raw"
HOTPOT = DATA / "hotpotqa" / "hotpot_dev_distractor_v1_sample300.json"
TABLE = [["relation", "value"], ["date of birth", "March 28, 1941"], ["occupation", "composer"]]


def paragraphs(n: int = 3) -> list[tuple[str, str]]:
    """``n`` real (title, paragraph) pairs of the first HotpotQA sample record."""
    record = json.loads(HOTPOT.read_text())[0]
    return [(t, "".join(s).strip()) for t, s in record["context"][:n]]


def make_pdf(path: Path, image_page: bool = False) -> list[tuple[str, str]]:
    """Page 1: a heading and two paragraphs; page 2: a paragraph, a ruled table, a paragraph;
    with ``image_page`` a third page holding only an image (a scan, no text layer)."""
    from fpdf import FPDF

    texts = paragraphs(4)
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.multi_cell(0, 10, texts[0][0], new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("Helvetica", size=11)
    for _, text in texts[:2]:
        pdf.multi_cell(0, 6, text.encode("latin-1", "replace").decode("latin-1"),
                       new_x="LMARGIN", new_y="NEXT")
        pdf.ln(5)
    pdf.add_page()
    pdf.multi_cell(0, 6, texts[2][1].encode("latin-1", "replace").decode("latin-1"),
                   new_x="LMARGIN", new_y="NEXT")
    pdf.ln(5)
    with pdf.table() as table:
        for cells in TABLE:
            row = table.row()
            for cell in cells:
                row.cell(cell)
    pdf.ln(5)
    pdf.multi_cell(0, 6, "After the table.", new_x="LMARGIN", new_y="NEXT")
    if image_page:
        from PIL import Image

        pdf.add_page()
        pdf.image(Image.new("RGB", (40, 40), (120, 30, 30)), x=20, y=20, w=60)
    pdf.output(str(path))
    return texts


def make_docx(path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Composer notes", level=1)
    document.add_paragraph(paragraphs(1)[0][1])
    document.add_page_break()
    document.add_heading("Career", level=2)
    table = document.add_table(rows=len(TABLE), cols=2)
    for r, cells in enumerate(TABLE):
        for c, cell in enumerate(cells):
            table.cell(r, c).text = cell
    document.add_paragraph("Closing paragraph.")
    document.save(str(path))


HTML = """<html><head><title>Clausen page</title><style>p {color: red}</style></head><body>
<nav>Home | About</nav><h1>Alf Clausen</h1><p>First paragraph about the composer.</p>
<h2>Works</h2><ul><li>The Simpsons</li></ul>
<table><tr><th>relation</th><th>value</th></tr><tr><td>date of birth</td>
<td>March 28, 1941</td></tr></table><script>var x = 1;</script><p>Last words.</p></body></html>
"""
