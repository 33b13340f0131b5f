"""A folder of user documents (.txt/.md, recursively) and its ``questions.jsonl``.

A ``documents`` folder stays inside itself: every path is resolved, and a symlink whose
target lies outside the folder (a file elsewhere, a system file) is skipped, never read;
unsupported files (``.pdf``, ``.png``, ...), hidden files and folders, empty files and
symlinked folders are skipped too, each with its reason: one row ``{source, path, kind,
reason}`` each (:data:`SKIPPED_COLUMNS`; ``path`` relative to the folder; ``kind`` one of
:data:`SKIP_KINDS`).
"""
from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path, PurePosixPath

from kgp_kedro.corpus.errors import DatasetFormatError
from kgp_kedro.corpus.readers.records import _decode, _records
from kgp_kedro.corpus.readers.rows import Rows, _document_row, _question_row

DOCUMENT_SUFFIXES = (".txt", ".md", ".markdown")
QUESTIONS_FILE = "questions.jsonl"
SKIPPED_COLUMNS = ["source", "path", "kind", "reason"]
SKIP_KINDS = ("outside_folder", "broken_link", "symlinked_folder", "unsupported", "hidden",
              "not_a_file", "empty", "duplicate")

_HEADING = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def scan_documents_folder(folder: Path, source: str = "") -> tuple[list[tuple[str, Path]], Rows]:
    """The documents of ``folder`` as ``(name relative to the folder, resolved path)``, in
    name order, and the rows of the files skipped (:data:`SKIPPED_COLUMNS`).

    Every path is resolved: a symlink to anything outside the folder is skipped (never read),
    as are symlinked folders (not followed), hidden files and folders, files that are not
    ``.txt``/``.md``, non-regular files, and a second link to an already listed file.
    The folder's own ``questions.jsonl`` is neither a document nor skipped.
    """
    root = folder.resolve()
    candidates: list[tuple[str, Path, bool]] = []  # (name, resolved path, is a symlink)
    skipped: Rows = []

    def skip(name: str, kind: str, reason: str) -> None:
        skipped.append({"source": source, "path": name, "kind": kind, "reason": reason})

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        keep = []
        for name in sorted(dirnames):
            sub = here / name
            rel = sub.relative_to(root).as_posix() + "/"
            if sub.is_symlink():
                target = sub.resolve()
                if _inside(target, root):
                    skip(rel, "symlinked_folder", "symlinked folder, not followed (its target "
                         f"{target.relative_to(root).as_posix() or '.'}/ is read where it lies)")
                else:
                    skip(rel, "outside_folder", f"symlink to {target}, outside the folder")
            elif name.startswith("."):
                skip(rel, "hidden", "hidden folder, not read")
            else:
                keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            path = here / name
            rel = path.relative_to(root).as_posix()
            if rel == QUESTIONS_FILE:
                continue
            target = path
            if path.is_symlink():
                try:
                    target = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    skip(rel, "broken_link", "broken symlink")
                    continue
                if not _inside(target, root):
                    skip(rel, "outside_folder", f"symlink to {target}, outside the folder")
                    continue
            if name.startswith("."):
                skip(rel, "hidden", "hidden file, not read")
            elif not target.is_file():
                skip(rel, "not_a_file", "not a regular file")
            elif path.suffix.lower() not in DOCUMENT_SUFFIXES \
                    or target.suffix.lower() not in DOCUMENT_SUFFIXES:
                suffix = (path.suffix if path.suffix.lower() not in DOCUMENT_SUFFIXES
                          else target.suffix) or "(none)"
                skip(rel, "unsupported", f"unsupported file type {suffix.lower()} (read: "
                     f"{', '.join(DOCUMENT_SUFFIXES)})")
            else:
                candidates.append((rel, target, path.is_symlink()))
    # two names of one file (a link inside the folder): the real file's name wins, else the first
    found: dict[Path, str] = {}
    documents: list[tuple[str, Path]] = []
    for rel, target, is_link in sorted(candidates,
                                       key=lambda c: (c[2], PurePosixPath(c[0]).parts)):
        if target in found:
            skip(rel, "duplicate", f"same file as {found[target]}")
        else:
            found[target] = rel
            documents.append((rel, target))
    documents.sort(key=lambda item: PurePosixPath(item[0]).parts)
    return documents, sorted(skipped, key=lambda row: row["path"])


def read_documents(path: Path, source: str, limit: int | None = None,
                   skipped: Rows | None = None) -> tuple[Rows, Rows]:
    """Read a folder of user documents (.txt/.md, recursively) and its ``questions.jsonl``.

    Each line of ``questions.jsonl``: ``{"id": ..., "question": ..., "answer": ...(optional),
    "answers": [...](optional), "supporting_docs": [relative file names](optional)}``. Every
    question is asked over the whole folder, so all questions share one collection.
    A markdown document's title is its first ``# heading``, otherwise the file name.
    Files not read (see :func:`scan_documents_folder`) are appended to ``skipped``.
    """
    if not path.is_dir():
        raise DatasetFormatError(path, "folder", "expected a folder of .txt/.md documents")
    root = path.resolve()
    questions_file = path / QUESTIONS_FILE
    if not questions_file.is_file():
        raise DatasetFormatError(questions_file, "file", "missing questions file")
    if not _inside(questions_file.resolve(), root):
        raise DatasetFormatError(questions_file, "file", f"symlink to {questions_file.resolve()}"
                                 ", outside the documents folder: refused")
    files, skipped_here = scan_documents_folder(path, source)
    if skipped is not None:
        skipped.extend(skipped_here)
    collection_id = f"{source}/all"

    documents: Rows = []
    for name, file in files:
        text = _decode(file, file.read_bytes(), "file").strip()
        if not text:
            skipped_row = {"source": source, "path": name, "kind": "empty",
                           "reason": "empty file"}
            if skipped is not None:
                skipped.append(skipped_row)
            skipped_here.append(skipped_row)
            continue
        heading = _HEADING.search(text) if file.suffix.lower() != ".txt" else None
        title = heading.group(1) if heading else Path(name).stem
        documents.append(_document_row(
            source, collection_id, f"{source}/{name}", title, len(documents), text=text,
            sentences=None, sentence_support=None, is_supporting=False))
    if not documents:
        kinds = Counter(row["kind"] for row in skipped_here)
        raise DatasetFormatError(path, "folder", "no .txt/.md documents found" + (
            f" ({len(skipped_here)} files skipped: "
            + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ")"
            if skipped_here else ""))
    names = {d["doc_id"].split("/", 1)[1] for d in documents}

    questions: Rows = []
    supporting: set[str] = set()
    for rec in _records(questions_file, limit, "id"):
        docs = rec.get_list_of("supporting_docs", str, optional=True) or []
        unknown = sorted(set(docs) - names)
        if unknown:
            rec.fail(f"supporting_docs not in {path}: {', '.join(unknown)}")
        supporting.update(docs)
        answer = (rec.get("answer", str, optional=True) or "").strip()
        answers = rec.get_list_of("answers", str, optional=True) or []
        row = _question_row(rec, source, "documents", answer=answer,
                            answers=[answer, *[a.strip() for a in answers]],
                            meta=json.dumps({"supporting_docs": docs}))
        row["collection_id"] = collection_id
        questions.append(row)
    for doc in documents:
        doc["is_supporting"] = doc["doc_id"].split("/", 1)[1] in supporting
    return questions, documents
