"""Text fit for reading from every file (issue 64): a PDF's glyphs without a Unicode map give
no ``(cid:N)``, ligatures are spelled out, words hyphenated at a line end are joined, two
columns are read column by column; text, Markdown and HTML files saved as UTF-16/32 with a
byte-order mark or as Windows-1252 are decoded, and a file that is no text is skipped with its
reason while the rest of the folder is read."""
from __future__ import annotations

import json

import pytest

from kgp_kedro.corpus.sources import read_source_with_skipped
from kgp_kedro.corpus.sources.formats import FileReadError, read_file
from kgp_kedro.corpus.sources.formats.pdf import clean_text
from tests.corpus.files import paragraphs


def _latin1(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


def _unmapped_font_pdf(path, names: str) -> None:
    """One line, 'Give <size> and the file', its '<', '>' and 'fi' drawn with codes 1, 2 and
    3 of a font with no ToUnicode map, whose encoding names those glyphs ``names``."""
    from fpdf import FPDF
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject, NumberObject

    pdf = FPDF()
    pdf.set_compression(False)
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 10, "Give <size> and the file")
    pdf.output(str(path))
    writer = PdfWriter(clone_from=str(path))
    page = writer.pages[0]
    font = page["/Resources"]["/Font"]["/F1"].get_object()
    font[NameObject("/Encoding")] = DictionaryObject({NameObject("/Differences"): ArrayObject(
        [NumberObject(1), *(NameObject(n) for n in names.split())])})
    contents = page["/Contents"].get_object()
    contents.set_data(contents.get_data().replace(b"(Give <size> and the file)",
                                                  b"(Give \\001size\\002 and the \\003le)"))
    writer.write(str(path))


def test_glyphs_without_a_unicode_map_give_no_cid_and_ligatures_are_spelled_out(tmp_path):
    _unmapped_font_pdf(tmp_path / "named.pdf", "/uni27E8 /uni27E9 /fi")
    assert [b.text for b in read_file(tmp_path / "named.pdf").blocks] == [
        "Give ⟨size⟩ and the file"]
    # glyph names no list knows (pdfminer wrote "(cid:1)size(cid:2)"): left out
    _unmapped_font_pdf(tmp_path / "unnamed.pdf", "/g1 /g2 /fi")
    assert [b.text for b in read_file(tmp_path / "unnamed.pdf").blocks] == [
        "Give size and the file"]
    assert clean_text("\ufb01le \ufb02ow o\ufb00 o\ufb03ce \x88bullet") == \
        "file flow off office bullet"


def test_a_word_hyphenated_at_a_line_end_is_joined_and_a_compound_kept(tmp_path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for line in ("The guide of the camera-", "ready manual says: read the instal-",
                 "lation notes first. A camera-ready copy is kept."):
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(tmp_path / "h.pdf"))
    assert [b.text for b in read_file(tmp_path / "h.pdf").blocks] == [
        "The guide of the camera-ready manual says: read the installation notes first. "
        "A camera-ready copy is kept."]


def test_two_columns_are_read_column_by_column(tmp_path):
    from fpdf import FPDF

    texts = [_latin1(text) for _, text in paragraphs(4)]
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    with pdf.text_columns(ncols=2, gutter=12, balance=True) as columns:
        for text in texts:
            columns.write(text + "\n\n")
    pdf.output(str(tmp_path / "columns.pdf"))
    blocks = read_file(tmp_path / "columns.pdf").blocks
    assert {b.page for b in blocks} == {1}
    lefts = [b.bbox[0] for b in blocks]
    assert min(lefts) < 60 and max(lefts) > 100           # both columns hold text
    assert " ".join(b.text for b in blocks).split() == " ".join(texts).split()


def test_text_files_in_other_encodings_are_read_and_a_binary_one_skipped(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "bom16.txt").write_bytes("Résumé: the café opens at 8.\n".encode("utf-16"))
    (folder / "bom32.md").write_bytes("# Naïve\n\nΩ and ∑.\n".encode("utf-32"))
    (folder / "sig.txt").write_bytes("Plain UTF-8 with a mark.".encode("utf-8-sig"))
    (folder / "windows.txt").write_bytes("Prices in € — naïve “quotes”.".encode("cp1252"))
    (folder / "page.html").write_bytes(
        "<html><body><p>Ça coûte 5 €</p></body></html>".encode("cp1252"))
    (folder / "weird.txt").write_bytes(b"\x00\x01\x02 not text \x81\x8d\xff")
    (folder / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "x?"}) + "\n")
    read = read_source_with_skipped("documents", folder, "d")
    assert {d["doc_id"]: d["text"] for d in read.documents} == {
        "d/bom16.txt": "Résumé: the café opens at 8.",
        "d/bom32.md": "# Naïve\n\nΩ and ∑.",
        "d/page.html": "Ça coûte 5 €",
        "d/sig.txt": "Plain UTF-8 with a mark.",
        "d/windows.txt": "Prices in € — naïve “quotes”."}
    assert [(r["path"], r["kind"]) for r in read.skipped] == [("weird.txt", "unreadable")]
    assert read.skipped[0]["reason"].startswith("not text: neither UTF-8 (byte 0x81 at "
                                                "offset 13)")


def test_a_broken_byte_order_mark_names_the_file(tmp_path):
    (tmp_path / "cut.txt").write_bytes(b"\xff\xfeA\x00B")   # UTF-16 cut inside a character
    with pytest.raises(FileReadError, match=r"cut\.txt: not UTF-16-LE text despite its "
                                            r"byte-order mark"):
        read_file(tmp_path / "cut.txt")


def test_rows_a_ruled_table_stacks_without_rules_between_them_are_rows(tmp_path):
    from fpdf import FPDF

    rows = [("Files", "17243"), ("Directories", "1005"), ("Lines of code", "3927255")]
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.rect(20, 20, 120, 8 + 6 * len(rows))   # a box and one rule between the columns
    pdf.line(80, 20, 80, 28 + 6 * len(rows))
    for i, (name, count) in enumerate(rows):   # drawn row by row, across the columns
        pdf.text(22, 27 + 6 * i, name)
        pdf.text(82, 27 + 6 * i, count)
    pdf.output(str(tmp_path / "t.pdf"))
    tables = [b for b in read_file(tmp_path / "t.pdf").blocks if b.kind == "table"]
    assert [t.rows for t in tables] == [[list(row) for row in rows]]
