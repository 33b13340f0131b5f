"""A folder of user documents (PDF, DOCX, HTML, Markdown, text; recursively) and its
``questions.jsonl``.

Each file is read by the reader of its extension (:mod:`kgp_kedro.corpus.sources.formats`):
its text, and its blocks in reading order (paragraphs, headings, tables with their page and
position) in the documents table's ``layout`` column, which the passages stage splits page by
page. A folder stays inside itself: every path is resolved, and a symlink whose target lies
outside the folder (a file elsewhere, a system file) is skipped, never read; unsupported files
(``.png``, ...), hidden files and folders, empty files and symlinked folders are skipped too,
and so is a file its reader cannot read (encrypted, corrupt, truncated: ``unreadable``, the
reason naming the page where known); the rest of the folder is still read. A page that gave no
text is listed too (``no_text_layer``: a scan or a blank page; ``unreadable_page``: the
extractor failed on it), its file kept. One row ``{source, path, kind, reason}`` each
(:data:`SKIPPED_COLUMNS`; ``path`` relative to the folder; ``kind`` one of
:data:`SKIP_KINDS`).
"""
from __future__ import annotations

import json
import logging
import os
from collections import Counter
from pathlib import Path, PurePosixPath

from kgp_kedro.corpus.errors import DatasetFormatError
from kgp_kedro.corpus.sources.base import DATASET_READERS, DatasetReader
from kgp_kedro.corpus.sources.formats import FileReadError, supported_suffixes
from kgp_kedro.corpus.sources.parse_cache import read_files
from kgp_kedro.corpus.sources.records import _given_questions, _records
from kgp_kedro.corpus.sources.rows import Rows, _document_row, _question_row

logger = logging.getLogger(__name__)

DOCUMENT_SUFFIXES = supported_suffixes()
QUESTIONS_FILE = "questions.jsonl"
SKIPPED_COLUMNS = ["source", "path", "kind", "reason"]
SKIP_KINDS = ("outside_folder", "broken_link", "symlinked_folder", "unsupported", "hidden",
              "not_a_file", "empty", "duplicate", "unreadable", "unreadable_page",
              "no_text_layer")


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def scan_documents_folder(folder: Path, source: str = "") -> tuple[list[tuple[str, Path]], Rows]:
    """The documents of ``folder`` as ``(name relative to the folder, resolved path)``, in
    name order, and the rows of the files skipped (:data:`SKIPPED_COLUMNS`).

    Every path is resolved: a symlink to anything outside the folder is skipped (never read),
    as are symlinked folders (not followed), hidden files and folders, files of no readable
    type (:data:`DOCUMENT_SUFFIXES`), non-regular files, and a second link to a listed file.
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
                   skipped: Rows | None = None, questions: str | Path | list[str] | None = None,
                   parse_cache: str | None = None) -> tuple[Rows, Rows]:
    """Read a folder of user documents (PDF, DOCX, HTML, Markdown, text; recursively) and its
    ``questions.jsonl``.

    Each line of ``questions.jsonl``: ``{"id": ..., "question": ..., "answer": ...(optional),
    "answers": [...](optional), "supporting_docs": [relative file names](optional),
    "structure": {"file": name, "page": n, "table": k}(optional: the gold structural node of
    a structural question, ``page`` and ``table`` optional, ``table`` the k-th table of the
    file in reading order)}``. Every
    question is asked over the whole folder, so all questions share one collection.
    A Markdown document's title is its first ``# heading``, a PDF's its metadata title, an
    HTML page's its ``<title>``, a DOCX file's its title property (or first Title/level-1
    heading); otherwise the file name. Files not read (see :func:`scan_documents_folder`), files
    a reader failed on and pages without text are appended to ``skipped``.

    ``questions``, when given, replaces the folder's ``questions.jsonl``: a list of question
    texts, or a file anywhere (``.txt``: one question a line; ``.jsonl``/``.json``: records as
    above, ``id`` optional); a question without an id gets ``q<n>``, its position.
    ``parse_cache``: a folder where each file's parse is kept by its content's sha256
    (:mod:`~kgp_kedro.corpus.sources.parse_cache`): an unchanged file is not parsed again.
    """
    if not path.is_dir():
        raise DatasetFormatError(path, "folder", "expected a folder of documents")
    root = path.resolve()
    questions_file = path / QUESTIONS_FILE
    if questions is None:
        if not questions_file.is_file():
            raise DatasetFormatError(questions_file, "file", "missing questions file")
        if not _inside(questions_file.resolve(), root):
            raise DatasetFormatError(questions_file, "file", "symlink to "
                                     f"{questions_file.resolve()}, outside the documents "
                                     "folder: refused")
    elif not isinstance(questions, list):
        questions = Path(questions)
        if not questions.is_file():
            raise DatasetFormatError(questions, "file", "missing questions file")
    files, skipped_here = scan_documents_folder(path, source)
    if skipped is not None:
        skipped.extend(skipped_here)
    collection_id = f"{source}/all"

    documents: Rows = []

    def skip(name: str, kind: str, reason: str) -> None:
        row = {"source": source, "path": name, "kind": kind, "reason": reason}
        if skipped is not None:
            skipped.append(row)
        skipped_here.append(row)

    read = read_files([file for _, file in files], parse_cache, desc=f"read {source}")
    for (name, file), content in zip(files, read):
        if isinstance(content, FileReadError):
            exc = content
            where = f"page {exc.page}: " if exc.page is not None else ""
            logger.warning("%s/%s: %s%s: skipped", path, name, where, exc.reason)
            skip(name, "unreadable", where + exc.reason)
            continue
        for problem in content.problems:
            skip(name, "unreadable_page" if problem.kind == "unreadable" else problem.kind,
                 problem.reason)
        text = content.text.strip()
        if not text:
            skip(name, "empty", "no text on any page" if content.problems else "empty file")
            continue
        layout = None if file.suffix.lower() == ".txt" else content.layout_json()
        documents.append(_document_row(
            source, collection_id, f"{source}/{name}", content.title or Path(name).stem,
            len(documents), text=text, sentences=None, sentence_support=None,
            is_supporting=False, layout=layout))
    if not documents:
        kinds = Counter(row["kind"] for row in skipped_here)
        raise DatasetFormatError(path, "folder", "no readable documents found" + (
            f" ({len(skipped_here)} files skipped: "
            + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ")"
            if skipped_here else ""))
    names = {d["doc_id"].split("/", 1)[1] for d in documents}

    records = (_records(questions_file, limit, "id") if questions is None
               else _given_questions(questions, limit, "id"))
    rows: Rows = []
    supporting: set[str] = set()
    for rec in records:
        docs = rec.get_list_of("supporting_docs", str, optional=True) or []
        unknown = sorted(set(docs) - names)
        if unknown:
            rec.fail(f"supporting_docs not in {path}: {', '.join(unknown)}")
        supporting.update(docs)
        structure = rec.get("structure", dict, optional=True)
        if structure is not None:
            if structure.get("file") not in names:
                rec.fail(f"structure.file not in {path}: {structure.get('file')!r}")
            for key in ("page", "table"):
                value = structure.get(key)
                if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                          or value < 1):
                    rec.fail(f"structure.{key} must be a positive integer, got {value!r}")
        answer = (rec.get("answer", str, optional=True) or "").strip()
        answers = rec.get_list_of("answers", str, optional=True) or []
        row = _question_row(rec, source, "documents", answer=answer,
                            answers=[answer, *[a.strip() for a in answers]],
                            meta=json.dumps({"supporting_docs": docs, **(
                                {"structure": structure} if structure is not None else {})}))
        row["collection_id"] = collection_id
        rows.append(row)
    for doc in documents:
        doc["is_supporting"] = doc["doc_id"].split("/", 1)[1] in supporting
    return rows, documents


@DATASET_READERS.register("documents")
class DocumentsReader(DatasetReader):
    questions_file = QUESTIONS_FILE
    options = ("questions", "parse_cache")

    def read(self, path: Path, source: str, limit: int | None, skipped: Rows,
             questions: str | list[str] | None = None, parse_cache: str | None = None
             ) -> tuple[Rows, Rows]:
        return read_documents(path, source, limit, skipped, questions, parse_cache)
