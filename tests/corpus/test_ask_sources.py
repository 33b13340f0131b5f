"""A documents folder asked questions given apart from it (a .txt without ids, a .jsonl, one
question) and its files' parses cached by content: a second read parses no file, a changed
file is parsed alone."""
from __future__ import annotations

import json

import pytest

from kgp_kedro.corpus.errors import DatasetFormatError
from kgp_kedro.corpus.sources import parse_cache, read_source_with_skipped
from tests.corpus.files import make_pdf, paragraphs


@pytest.fixture
def folder(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "a.pdf")
    (docs / "notes.md").write_text(f"# Notes\n\n{paragraphs(1)[0][1]}\n")
    (docs / "bad.pdf").write_bytes(b"%PDF-1.4 garbage")
    return docs


def test_plain_text_questions_without_ids_need_no_questions_jsonl(folder, tmp_path):
    asked = tmp_path / "questions.txt"
    asked.write_text("Who composed it?\n\n# a comment\n  When was it released?  \n")
    read = read_source_with_skipped("documents", folder, "docs", questions=str(asked))
    assert [(q["question_id"], q["question"]) for q in read.questions] == [
        ("q1", "Who composed it?"), ("q2", "When was it released?")]
    assert {q["collection_id"] for q in read.questions} == {"docs/all"}
    assert [d["doc_id"] for d in read.documents] == ["docs/a.pdf", "docs/notes.md"]


def test_one_question_and_jsonl_questions_with_optional_ids(folder, tmp_path):
    read = read_source_with_skipped("documents", folder, "docs", questions=["Who is it?"])
    assert [(q["question_id"], q["question"]) for q in read.questions] == [("q1", "Who is it?")]
    asked = tmp_path / "asked.jsonl"
    asked.write_text(json.dumps({"question": "First?"}) + "\n"
                     + json.dumps({"id": "mine", "question": "Second?",
                                   "supporting_docs": ["a.pdf"]}) + "\n")
    read = read_source_with_skipped("documents", folder, "docs", questions=str(asked))
    assert [q["question_id"] for q in read.questions] == ["q1", "mine"]
    assert [d["is_supporting"] for d in read.documents] == [True, False]


def test_bad_questions_are_named(folder, tmp_path):
    asked = tmp_path / "asked.jsonl"
    asked.write_text(json.dumps({"question": "Fine?"}) + "\n" + json.dumps({"q": "x"}) + "\n")
    with pytest.raises(DatasetFormatError, match=r"asked\.jsonl.*line 2.*missing field "
                                                 r"'question'"):
        read_source_with_skipped("documents", folder, "docs", questions=str(asked))
    with pytest.raises(DatasetFormatError, match=r"questions\.csv.*\.txt, \.jsonl, \.json"):
        (tmp_path / "questions.csv").write_text("x\n")
        read_source_with_skipped("documents", folder, "docs",
                                 questions=str(tmp_path / "questions.csv"))


def test_parse_cache_parses_an_unchanged_file_never_again_and_a_changed_one_alone(
        folder, tmp_path, monkeypatch):
    parsed = []
    real = parse_cache.read_file
    monkeypatch.setattr(parse_cache, "read_file", lambda path: parsed.append(path.name)
                        or real(path))
    cache = str(tmp_path / "cache")

    def read():
        return read_source_with_skipped("documents", folder, "docs", questions=["Q?"],
                                        parse_cache=cache)

    first = read()
    assert sorted(parsed) == ["a.pdf", "bad.pdf", "notes.md"]
    parsed.clear()
    again = read()   # nothing parsed, the same documents and the same skipped file
    assert parsed == []
    assert again.documents == first.documents and again.skipped == first.skipped
    assert [r["kind"] for r in again.skipped] == ["unreadable"]
    (folder / "notes.md").write_text("# Notes\n\nA changed paragraph.\n")
    changed = read()
    assert parsed == ["notes.md"]
    assert changed.documents[0] == first.documents[0]
    assert changed.documents[1]["text"] == "# Notes\n\nA changed paragraph."


def test_a_changed_extractor_parses_every_file_again(folder, tmp_path, monkeypatch):
    parsed = []
    real = parse_cache.read_file
    monkeypatch.setattr(parse_cache, "read_file", lambda path: parsed.append(path.name)
                        or real(path))
    cache = str(tmp_path / "cache")

    def parsed_by_a_read() -> list[str]:
        parsed.clear()
        read_source_with_skipped("documents", folder, "docs", questions=["Q?"],
                                 parse_cache=cache)
        return sorted(parsed)

    every_file = ["a.pdf", "bad.pdf", "notes.md"]
    todays = parse_cache.READERS
    for when in ("before", "after"):              # other readers' code: a PDF reader changed
        (tmp_path / when).mkdir()
        (tmp_path / when / "pdf.py").write_text(f"# the PDF reader {when} a change\n")
        monkeypatch.setattr(parse_cache, "READERS", tmp_path / when)
        assert parsed_by_a_read() == every_file  # before: parsed first; after: none reused
    monkeypatch.setattr(parse_cache, "READERS", todays)
    assert parsed_by_a_read() == every_file      # today's readers
    assert parsed_by_a_read() == []
    version = parse_cache.package_version
    monkeypatch.setattr(parse_cache, "package_version", lambda name: "0.0-other"
                        if name == "pypdfium2" else version(name))
    assert parsed_by_a_read() == every_file      # another PDFium: none reused
