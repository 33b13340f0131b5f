"""A documents folder stays inside itself (issue 13): every path is resolved, symlinks that
leave the folder (to another file, to a system file, to a folder) are refused and listed as
skipped; unsupported files are listed with their reason, never silently ignored."""
from __future__ import annotations

import json
import logging
import os

import pytest

from kgp_kedro.corpus import DatasetFormatError, read_source
from kgp_kedro.corpus.sources import SKIPPED_COLUMNS, read_source_with_skipped
from tests.reliability.corrupt import HOTPOT, first_records


@pytest.fixture()
def folder(tmp_path):
    """A user folder of three real HotpotQA paragraphs and a questions file."""
    record = first_records(HOTPOT, 1)[0]
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    for i, (title, sentences) in enumerate(record["context"][:3]):
        name = "sub/first.md" if i == 0 else f"doc{i}.txt"
        body = "".join(sentences).strip()
        (docs / name).write_text(f"# {title}\n\n{body}\n" if i == 0 else body)
    (docs / "questions.jsonl").write_text(json.dumps(
        {"id": "q1", "question": record["question"], "answer": record["answer"]}) + "\n")
    return docs


def _names(result):
    return sorted(d["doc_id"].split("/", 1)[1] for d in result.documents)


def _skipped(result):
    return {row["path"]: row for row in result.skipped}


def test_symlink_to_a_file_outside_the_folder_is_refused(folder, tmp_path):
    secret = tmp_path / "outside.txt"
    secret.write_text("private notes that must not be ingested")
    (folder / "link.txt").symlink_to(secret)
    result = read_source_with_skipped("documents", folder, "d")
    assert "link.txt" not in _names(result)
    assert not any("private notes" in d["text"] for d in result.documents)
    row = _skipped(result)["link.txt"]
    assert row["kind"] == "outside_folder" and str(secret) in row["reason"]


def test_symlink_to_a_system_file_is_refused(folder):
    (folder / "passwd.txt").symlink_to("/etc/passwd")
    (folder / "hosts.md").symlink_to("/etc/hosts")
    result = read_source_with_skipped("documents", folder, "d")
    assert _names(result) == ["doc1.txt", "doc2.txt", "sub/first.md"]
    skipped = _skipped(result)
    assert skipped["passwd.txt"]["kind"] == skipped["hosts.md"]["kind"] == "outside_folder"
    assert not any("root:" in d["text"] for d in result.documents)


def test_symlinked_folder_pointing_outside_is_not_followed(folder, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "leak.txt").write_text("outside text")
    (folder / "more").symlink_to(elsewhere, target_is_directory=True)
    result = read_source_with_skipped("documents", folder, "d")
    assert not any("leak" in name for name in _names(result))
    assert _skipped(result)["more/"]["kind"] == "outside_folder"


def test_relative_symlink_escaping_with_dotdot_is_refused(folder, tmp_path):
    (tmp_path / "sibling.txt").write_text("sibling text")
    (folder / "sub" / "up.txt").symlink_to(os.path.join("..", "..", "sibling.txt"))
    result = read_source_with_skipped("documents", folder, "d")
    assert "sub/up.txt" not in _names(result)
    assert _skipped(result)["sub/up.txt"]["kind"] == "outside_folder"


def test_symlink_inside_the_folder_is_read_once(folder):
    (folder / "alias.txt").symlink_to(folder / "doc1.txt")
    result = read_source_with_skipped("documents", folder, "d")
    assert _names(result) == ["doc1.txt", "doc2.txt", "sub/first.md"]
    assert _skipped(result)["alias.txt"] == {
        "source": "d", "path": "alias.txt", "kind": "duplicate", "reason": "same file as doc1.txt"}


def test_broken_symlink_is_listed(folder, tmp_path):
    (folder / "gone.txt").symlink_to(tmp_path / "does-not-exist.txt")
    result = read_source_with_skipped("documents", folder, "d")
    assert _skipped(result)["gone.txt"]["kind"] == "broken_link"


def test_questions_file_linked_from_outside_is_refused(folder, tmp_path):
    outside = tmp_path / "q.jsonl"
    (folder / "questions.jsonl").rename(outside)
    (folder / "questions.jsonl").symlink_to(outside)
    with pytest.raises(DatasetFormatError, match=r"questions\.jsonl: file: symlink to .*outside"):
        read_source("documents", folder, "d")


def test_unsupported_files_are_listed_with_a_reason_and_logged(folder, caplog):
    (folder / "paper.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    (folder / "sub" / "figure.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "notes").write_text("no suffix")
    (folder / ".hidden.txt").write_text("hidden")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main")
    (folder / "blank.md").write_text("   \n")
    with caplog.at_level(logging.INFO, logger="kgp_kedro.corpus.sources"):
        result = read_source_with_skipped("documents", folder, "d")
    assert _names(result) == ["doc1.txt", "doc2.txt", "sub/first.md"]
    skipped = _skipped(result)
    assert set(skipped) == {"paper.pdf", "sub/figure.png", "notes", ".hidden.txt", ".git/",
                            "blank.md"}
    assert skipped["paper.pdf"]["kind"] == "unreadable"   # a PDF with no body: named error
    assert "cannot open PDF" in skipped["paper.pdf"]["reason"]
    assert skipped["sub/figure.png"]["kind"] == "unsupported"
    assert skipped["notes"]["reason"].startswith("unsupported file type (none)")
    assert skipped[".hidden.txt"]["kind"] == skipped[".git/"]["kind"] == "hidden"
    assert skipped["blank.md"]["kind"] == "empty"
    assert all(set(row) == set(SKIPPED_COLUMNS) for row in result.skipped)
    summary = [r for r in caplog.records if r.getMessage().startswith("Skipped 6 files in")]
    assert len(summary) == 1 and summary[0].levelno == logging.INFO
    assert "1 empty, 2 hidden, 1 unreadable, 2 unsupported" in summary[0].getMessage()
    unreadable = [r for r in caplog.records
                  if r.levelno == logging.WARNING and r.name.startswith("kgp_kedro")]
    assert len(unreadable) == 1 and "paper.pdf: cannot open PDF" in unreadable[0].getMessage()


def test_read_source_keeps_its_two_tables(folder):
    (folder / "paper.pdf").write_bytes(b"%PDF")
    questions, documents = read_source("documents", folder, "d")
    assert [q["question_id"] for q in questions] == ["q1"]
    assert len(documents) == 3


def test_a_folder_of_only_unsupported_files_says_what_was_skipped(tmp_path):
    folder = tmp_path / "pdfs"
    folder.mkdir()
    (folder / "a.png").write_bytes(b"\x89PNG")
    (folder / "questions.jsonl").write_text('{"id": "q", "question": "x?"}\n')
    with pytest.raises(DatasetFormatError, match=r"no readable documents found \(1 files "
                                                 r"skipped: 1 unsupported\)"):
        read_source("documents", folder, "d")


def test_non_utf8_questions_file_names_the_line(folder):
    path = folder / "questions.jsonl"
    path.write_bytes(path.read_bytes() + b'{"id": "q2", "question": "Caf\xe9?"}\n')
    with pytest.raises(DatasetFormatError, match=r"questions\.jsonl: line 2: not UTF-8 text"):
        read_source("documents", folder, "d")


def test_a_latin1_document_is_read_and_an_undecodable_one_skipped_naming_the_file(folder):
    (folder / "doc1.txt").write_bytes(b"Caf\xe9 au lait")
    (folder / "doc2.txt").write_bytes(b"\x00\x01 no text \x81\xff")
    result = read_source_with_skipped("documents", folder, "d")
    assert _names(result) == ["doc1.txt", "sub/first.md"]
    assert [d["text"] for d in result.documents if d["doc_id"] == "d/doc1.txt"] == [
        "Café au lait"]
    skipped = _skipped(result)["doc2.txt"]
    assert skipped["kind"] == "unreadable" and skipped["reason"].startswith("not text")


@pytest.mark.parametrize("field,value,expected", [
    ("supporting_docs", [3], "field 'supporting_docs' item 0 should be str, got int"),
    ("supporting_docs", "doc1.txt", "field 'supporting_docs' should be list, got str"),
    ("answers", ["ok", None], "field 'answers' item 1 should be str, got NoneType"),
    ("answer", 12, "field 'answer' should be str, got int"),
    ("question", None, "field 'question' is null"),
])
def test_questions_file_fields_are_type_checked(folder, field, value, expected):
    record = {"id": "q9", "question": "Which?", field: value}
    (folder / "questions.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(DatasetFormatError) as info:
        read_source("documents", folder, "d")
    assert "questions.jsonl: line 1 (id q9): " + expected in str(info.value)


def test_empty_questions_file_is_an_error(folder):
    (folder / "questions.jsonl").write_text("")
    with pytest.raises(DatasetFormatError, match=r"questions\.jsonl: file: no questions"):
        read_source("documents", folder, "d")
