"""PDF, DOCX, HTML and Markdown readers on tiny generated files: pages, tables, reading
order, named errors for encrypted, truncated and scanned files, passages keeping their page."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from kgp_kedro.corpus import split_passages
from kgp_kedro.corpus.sources import read_source_with_skipped
from kgp_kedro.corpus.sources.formats import FileReadError, markdown_table, read_file
from tests.corpus.files import HTML, TABLE, make_docx, make_pdf

TABLE_MD = ("| relation | value |\n| --- | --- |\n| date of birth | March 28, 1941 |\n"
            "| occupation | composer |")


def test_markdown_table_by_hand():
    assert markdown_table(TABLE) == TABLE_MD
    assert markdown_table([["a|b", None], ["1"]]) == "| a\\|b |  |\n| --- | --- |\n| 1 |  |"


def test_pdf_pages_tables_and_reading_order(tmp_path):
    texts = make_pdf(tmp_path / "a.pdf")
    content = read_file(tmp_path / "a.pdf")
    assert content.pages == 2 and content.problems == []
    kinds = [(b.kind, b.page) for b in content.blocks]
    assert kinds == [("heading", 1), ("text", 1), ("text", 1), ("text", 2), ("table", 2),
                     ("text", 2)]
    assert content.blocks[0].text == texts[0][0]
    # the paragraph text survives extraction word for word (the page wraps its lines)
    assert content.blocks[1].text.split()[:8] == texts[0][1].split()[:8]
    table = content.blocks[4]
    assert table.rows == TABLE and table.text == TABLE_MD
    assert table.bbox[1] > content.blocks[3].bbox[3]          # below the paragraph before it
    assert content.blocks[5].text == "After the table."


def test_pdf_errors_name_the_file_and_page(tmp_path):
    from pypdf import PdfReader, PdfWriter

    make_pdf(tmp_path / "a.pdf", image_page=True)
    content = read_file(tmp_path / "a.pdf")
    assert [(p.page, p.kind) for p in content.problems] == [(3, "no_text_layer")]
    assert "page 3: no text layer" in content.problems[0].reason
    writer = PdfWriter(clone_from=PdfReader(tmp_path / "a.pdf"))
    writer.encrypt("secret")
    writer.write(tmp_path / "locked.pdf")
    with pytest.raises(FileReadError, match=r"locked\.pdf: encrypted PDF, a password"):
        read_file(tmp_path / "locked.pdf")
    data = (tmp_path / "a.pdf").read_bytes()
    (tmp_path / "cut.pdf").write_bytes(data[: len(data) // 3])
    with pytest.raises(FileReadError, match=r"cut\.pdf: "):
        read_file(tmp_path / "cut.pdf")


def test_docx_headings_tables_and_page_breaks(tmp_path):
    make_docx(tmp_path / "notes.docx")
    content = read_file(tmp_path / "notes.docx")
    assert [(b.kind, b.page) for b in content.blocks] == [
        ("heading", 1), ("text", 1), ("heading", 2), ("table", 2), ("text", 2)]
    assert content.title == "Composer notes" and content.blocks[2].level == 2
    assert content.blocks[3].text == TABLE_MD
    (tmp_path / "bad.docx").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(FileReadError, match=r"bad\.docx: not a DOCX package"):
        read_file(tmp_path / "bad.docx")


def test_html_headings_paragraphs_tables(tmp_path):
    (tmp_path / "p.html").write_text(HTML)
    content = read_file(tmp_path / "p.html")
    assert content.title == "Clausen page"
    assert [(b.kind, b.text) for b in content.blocks if b.kind != "table"] == [
        ("heading", "Alf Clausen"), ("text", "First paragraph about the composer."),
        ("heading", "Works"), ("text", "The Simpsons"), ("text", "Last words.")]
    assert [b.rows for b in content.blocks if b.kind == "table"] == [TABLE[:2]]


def test_a_folder_of_files_ingests_past_bad_ones_and_passages_keep_pages(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    make_pdf(folder / "a.pdf", image_page=True)
    make_docx(folder / "b.docx")
    (folder / "c.html").write_text(HTML)
    (folder / "d.md").write_text("# Notes\n\nSome text.\n\n| x | y |\n| --- | --- |\n| 1 | 2 |\n")
    (folder / "bad.pdf").write_bytes(b"%PDF-1.4 garbage")
    (folder / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "x?"}) + "\n")
    read = read_source_with_skipped("documents", folder, "d")
    assert [d["doc_id"] for d in read.documents] == ["d/a.pdf", "d/b.docx", "d/c.html", "d/d.md"]
    skipped = {(r["path"], r["kind"]): r["reason"] for r in read.skipped}
    assert set(skipped) == {("a.pdf", "no_text_layer"), ("bad.pdf", "unreadable")}
    assert "cannot open PDF" in skipped[("bad.pdf", "unreadable")]
    passages = split_passages(pd.DataFrame(read.documents))
    pdf = passages[passages["doc_id"] == "d/a.pdf"]
    assert pdf["page"].tolist()[0] == 1 and set(pdf["page"]) == {1, 2}
    assert pdf["kind"].tolist()[0] == "heading"
    assert pdf[pdf["kind"] == "table"]["text"].tolist() == [TABLE_MD]
    assert pdf[pdf["kind"] == "table"]["page"].tolist() == [2]
    assert pdf["order"].tolist() == list(range(len(pdf)))
    md = passages[passages["doc_id"] == "d/d.md"]
    assert md["kind"].tolist() == ["heading", "passage", "table"]
    assert md["page"].isna().all()
