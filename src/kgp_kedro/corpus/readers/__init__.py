"""Readers for the native formats of HotpotQA, MuSiQue, 2WikiMultihopQA and user documents.

Each reader returns ``(questions, documents)``: two lists of row dicts in the layout of
:mod:`kgp_kedro.corpus.schema`, holding each question's *own* documents (its context). The
negative documents of paper §8.1 are added afterwards by
:func:`kgp_kedro.corpus.collections.build_collections`.

Entry points:

- :func:`read_source` ``(dataset, path, source, limit) -> (questions, documents)``;
- :func:`read_source_with_skipped`, same arguments, returns a :class:`SourceRead` with
  ``questions``, ``documents`` and ``skipped``: the files of a ``documents`` folder that were
  not read, one row ``{source, path, kind, reason}`` each (:data:`SKIPPED_COLUMNS`; ``path``
  relative to the folder; ``kind`` one of :data:`SKIP_KINDS`), for a ``skipped_files`` table.
  Both log one INFO line summarising the skipped files.

Every field a reader uses is type-checked; a malformed input raises
:class:`~kgp_kedro.corpus.errors.DatasetFormatError` naming the file and the record (index or
line, and id), before anything is returned: invalid JSON or non-UTF-8 bytes (with the line),
a field of the wrong type or ``null`` (``paragraph_text: null``, an int answer alias,
``title: null``), a paragraph ``idx`` repeated within a MuSiQue record, a document id
repeated within a collection, a repeated question id, and a source that yields no question
(an empty file, ``limit: 0``). A bad ``limit`` (not null or a non-negative int: ``'2'``,
``1.5``, ``true``) raises :class:`~kgp_kedro.corpus.errors.ParameterError` naming the
parameter key (pass ``param_key="ingest.sources[i]"``).

A ``documents`` folder stays inside itself: every path is resolved, and a symlink whose
target lies outside the folder (a file elsewhere, a system file) is skipped, never read;
unsupported files (``.pdf``, ``.png``, ...), hidden files and folders, empty files and
symlinked folders are skipped too, each with its reason.

Quirks handled (``shared/data/README.md``): HotpotQA sentences keep their leading space,
2Wiki sentences do not; contexts do not always have 10 paragraphs; MuSiQue titles repeat
inside a question (documents are keyed by ``idx``); MuSiQue answers have aliases; 2Wiki
records of the original release lack ``entity_ids``/``evidences_id``/``answer_id``; 2Wiki
contexts can repeat a paragraph; supporting-fact sentence ids can point past a paragraph's
last sentence (a known inconsistency of 2Wiki train, skipped with a warning).
"""
from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from kgp_kedro.corpus.errors import DatasetFormatError, ParameterError

logger = logging.getLogger(__name__)

Rows = list[dict[str, Any]]

DOCUMENT_SUFFIXES = (".txt", ".md", ".markdown")
QUESTIONS_FILE = "questions.jsonl"
SKIPPED_COLUMNS = ["source", "path", "kind", "reason"]
SKIP_KINDS = ("outside_folder", "broken_link", "symlinked_folder", "unsupported", "hidden",
              "not_a_file", "empty", "duplicate")


@dataclass
class SourceRead:
    """What one source gave: question rows, document rows, and the files it skipped."""

    questions: Rows
    documents: Rows
    skipped: Rows = field(default_factory=list)


def join_sentences(sentences: list[str]) -> str:
    """Join a dataset's sentences into a paragraph.

    HotpotQA keeps the separating space at the start of each sentence after the first, 2Wiki
    does not: a sentence that starts with whitespace is appended as is, any other one after a
    single space.
    """
    text = ""
    for sentence in sentences:
        if text and not sentence[:1].isspace() and not text[-1:].isspace():
            text += " "
        text += sentence
    return text.strip()


def _type_name(kind: type | tuple[type, ...]) -> str:
    return kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    """``isinstance`` that does not take a bool for an int (JSON ``true`` is no number)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def _decode(path: Path, data: bytes, where: str | None = None) -> str:
    """UTF-8 text of ``data`` (a leading BOM dropped); a bad byte names the file and line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if where is None:
            line = data[:exc.start].count(b"\n") + 1
            where = f"line {line}"
        raise DatasetFormatError(path, where, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at "
                                              f"offset {exc.start}: {exc.reason})") from exc


def _load_json_list(path: Path) -> list[Any]:
    text = _decode(path, path.read_bytes())
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetFormatError(path, f"line {exc.lineno}", f"invalid JSON ({exc.msg})") from exc
    if not isinstance(data, list):
        raise DatasetFormatError(path, "top level", "expected a JSON list of question records")
    return data


def _iter_jsonl(path: Path) -> Iterator[tuple[str, Any]]:
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            where = f"line {line_no}"
            line = _decode(path, raw, where)
            if not line.strip():
                continue
            try:
                yield where, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetFormatError(path, where, f"invalid JSON ({exc.msg})") from exc


class _Record:
    """Typed access to one raw record, raising errors that name the file and the record."""

    def __init__(self, path: Path, where: str, raw: Any, id_key: str) -> None:
        self.path = path
        self.where = where
        if not isinstance(raw, dict):
            self.fail(f"expected a JSON object, got {type(raw).__name__}")
        self.raw = raw
        rid = raw.get(id_key)
        if rid is not None and not _is(rid, (str, int)):
            self.fail(f"field '{id_key}' should be str/int, got {type(rid).__name__}")
        self.id = str(rid).strip() if rid is not None else None
        if self.id:
            self.where = f"{where} (id {self.id})"

    def fail(self, reason: str) -> None:
        raise DatasetFormatError(self.path, self.where, reason)

    def get(self, key: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
        if key not in self.raw or self.raw[key] is None:
            if optional:
                return None
            self.fail(f"missing field '{key}'" if key not in self.raw
                      else f"field '{key}' is null")
        value = self.raw[key]
        if not _is(value, kind):
            self.fail(f"field '{key}' should be {_type_name(kind)}, got {type(value).__name__}")
        return value

    def get_list_of(self, key: str, kind: type | tuple[type, ...],
                    optional: bool = False) -> list[Any] | None:
        """A list field whose every item is ``kind``; a bad item is named by its index."""
        values = self.get(key, list, optional)
        for i, value in enumerate(values or []):
            if not _is(value, kind):
                self.fail(f"field '{key}' item {i} should be {_type_name(kind)}, got "
                          f"{type(value).__name__} ({value!r})")
        return values


def _records(path: Path, limit: int | None, id_key: str) -> Iterator[_Record]:
    """The first ``limit`` records of a JSON list (``.json``) or JSONL file, each with an id."""
    if path.suffix == ".jsonl":
        located: Iterator[tuple[str, Any]] = _iter_jsonl(path)
    else:
        located = ((f"record {i}", raw) for i, raw in enumerate(_load_json_list(path)))
    for index, (where, raw) in enumerate(located):
        if limit is not None and index >= limit:
            break
        rec = _Record(path, where, raw, id_key)
        if not rec.id:
            rec.fail(f"missing field '{id_key}'" if rec.raw.get(id_key) is None
                     else f"empty field '{id_key}'")
        yield rec


def _question_row(rec: _Record, source: str, dataset: str, **fields: Any) -> dict[str, Any]:
    question = rec.get("question", str).strip()
    if not question:
        rec.fail("empty question")
    answer = fields.pop("answer", "")
    answers = fields.pop("answers", None) or ([answer] if answer else [])
    row = {
        "source": source,
        "dataset": dataset,
        "question_id": rec.id,
        "collection_id": f"{source}/{rec.id}",
        "question": question,
        "answer": answer,
        "answers": list(dict.fromkeys(a for a in answers if a)),
        "qtype": None,
        "n_hops": None,
        "meta": "{}",
    }
    row.update(fields)
    return row


def _document_row(source: str, collection_id: str, doc_id: str, title: str, position: int,
                  *, text: str, sentences: list[str] | None, sentence_support: list[bool] | None,
                  is_supporting: bool) -> dict[str, Any]:
    return {
        "source": source,
        "collection_id": collection_id,
        "doc_id": doc_id,
        "title": title,
        "text": text,
        "sentences": sentences,
        "sentence_support": sentence_support,
        "is_supporting": bool(is_supporting),
        "is_negative": False,
        "position": position,
    }


def _sentence_context_documents(rec: _Record, source: str, collection_id: str) -> Rows:
    """Documents of a HotpotQA / 2Wiki record: ``context`` = [[title, [sentence, ...]], ...]."""
    context = rec.get("context", list)
    facts = rec.get("supporting_facts", list)
    supporting: dict[str, set[int]] = {}
    for fact in facts:
        if not (isinstance(fact, list) and len(fact) == 2 and _is(fact[0], str)
                and _is(fact[1], int)):
            rec.fail(f"malformed supporting fact {fact!r} (expected [title, sentence id])")
        supporting.setdefault(fact[0], set()).add(fact[1])

    docs: Rows = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    titles = set()
    for position, item in enumerate(context):
        if not (isinstance(item, list) and len(item) == 2):
            rec.fail(f"malformed context paragraph {position} (expected [title, [sentence, ...]])")
        title, sentences = item
        if not _is(title, str):
            rec.fail(f"context paragraph {position}: title should be str, got "
                     f"{type(title).__name__}")
        if not isinstance(sentences, list):
            rec.fail(f"malformed context paragraph {position} (expected [title, [sentence, ...]])")
        for i, sentence in enumerate(sentences):
            if not _is(sentence, str):
                rec.fail(f"context paragraph {position}: sentence {i} should be str, got "
                         f"{type(sentence).__name__}")
        key = (title, tuple(sentences))
        if key in seen:  # 2Wiki repeats identical paragraphs within a context
            continue
        seen.add(key)
        titles.add(title)
        ids = supporting.get(title, set())
        for sid in sorted(i for i in ids if not 0 <= i < len(sentences)):
            logger.warning("%s: %s: supporting fact [%r, %d] is past the paragraph's %d sentences;"
                           " skipped", rec.path, rec.where, title, sid, len(sentences))
        flags = [i in ids for i in range(len(sentences))]
        docs.append(_document_row(
            source, collection_id, f"{source}/{rec.id}/{position}", title, len(docs),
            text=join_sentences(sentences), sentences=sentences, sentence_support=flags,
            is_supporting=any(flags)))
    if not docs:
        rec.fail("empty context")
    for title in sorted(set(supporting) - titles):
        logger.warning("%s: %s: supporting-fact title %r is not in the context", rec.path,
                       rec.where, title)
    return docs


def _read_sentence_dataset(path: Path, source: str, limit: int | None, dataset: str,
                           fields: Callable[[_Record], dict[str, Any]]) -> tuple[Rows, Rows]:
    """HotpotQA and 2Wiki share a layout: a JSON list of records keyed by ``_id`` whose
    ``context`` gives titled sentence lists; ``fields`` reads the dataset-specific columns."""
    questions: Rows = []
    documents: Rows = []
    for rec in _records(path, limit, "_id"):
        row = _question_row(rec, source, dataset, answer=rec.get("answer", str).strip(),
                            qtype=rec.get("type", str, optional=True), **fields(rec))
        questions.append(row)
        documents.extend(_sentence_context_documents(rec, source, row["collection_id"]))
    return questions, documents


def _hotpotqa_fields(rec: _Record) -> dict[str, Any]:
    return {"n_hops": 2,
            "meta": json.dumps({"supporting_facts": rec.get("supporting_facts", list),
                                "level": rec.get("level", str, optional=True)})}


def _2wiki_fields(rec: _Record) -> dict[str, Any]:
    evidences = rec.get_list_of("evidences", list, optional=True) or []
    return {"n_hops": len(evidences) or None,
            "meta": json.dumps({"supporting_facts": rec.get("supporting_facts", list),
                                "evidences": evidences,
                                # updated release only
                                "entity_ids": rec.get("entity_ids", str, optional=True),
                                "answer_id": rec.get("answer_id", str, optional=True)})}


def read_hotpotqa(path: Path, source: str, limit: int | None = None) -> tuple[Rows, Rows]:
    """Read HotpotQA (distractor or train JSON list) records."""
    return _read_sentence_dataset(path, source, limit, "hotpotqa", _hotpotqa_fields)


def read_2wikimultihopqa(path: Path, source: str, limit: int | None = None) -> tuple[Rows, Rows]:
    """Read 2WikiMultihopQA (original or updated release) records."""
    return _read_sentence_dataset(path, source, limit, "2wikimultihopqa", _2wiki_fields)


def _musique_paragraph(rec: _Record, position: int, par: Any) -> tuple[int, str, str, bool]:
    """``(idx, title, text, is_supporting)`` of paragraph ``position``, every field checked."""
    if not isinstance(par, dict):
        rec.fail(f"paragraph {position} is not an object")
    missing = [k for k in ("idx", "title", "paragraph_text") if k not in par]
    if missing:
        rec.fail(f"paragraph {position} lacks {', '.join(missing)}")
    for key, kind in (("idx", int), ("title", str), ("paragraph_text", str)):
        if not _is(par[key], kind):
            rec.fail(f"paragraph {position}: field '{key}' should be {kind.__name__}, got "
                     f"{'null' if par[key] is None else type(par[key]).__name__}")
    supporting = par.get("is_supporting", False)
    if supporting is None:
        supporting = False
    if not isinstance(supporting, bool):
        rec.fail(f"paragraph {position}: field 'is_supporting' should be bool, got "
                 f"{type(supporting).__name__}")
    return par["idx"], par["title"], par["paragraph_text"], supporting


def read_musique(path: Path, source: str, limit: int | None = None) -> tuple[Rows, Rows]:
    """Read MuSiQue (JSONL) records; paragraphs are keyed by ``idx``, never by title."""
    questions: Rows = []
    documents: Rows = []
    for rec in _records(path, limit, "id"):
        answer = rec.get("answer", str).strip()
        aliases = rec.get_list_of("answer_aliases", str, optional=True) or []
        decomposition = rec.get_list_of("question_decomposition", dict, optional=True) or []
        row = _question_row(
            rec, source, "musique", answer=answer, answers=[answer, *[a.strip() for a in aliases]],
            qtype=rec.id.split("__", 1)[0], n_hops=len(decomposition) or None,
            meta=json.dumps({"question_decomposition": decomposition,
                             "answerable": rec.get("answerable", bool, optional=True)}))
        questions.append(row)
        paragraphs = rec.get("paragraphs", list)
        if not paragraphs:
            rec.fail("no paragraphs")
        first_at: dict[int, int] = {}
        for position, par in enumerate(paragraphs):
            idx, title, text, supporting = _musique_paragraph(rec, position, par)
            if idx in first_at:
                rec.fail(f"paragraph {position} repeats idx {idx} (paragraph {first_at[idx]}): "
                         "paragraph ids must be unique within a record")
            first_at[idx] = position
            documents.append(_document_row(
                source, row["collection_id"], f"{source}/{rec.id}/{idx}", title,
                position, text=text.strip(), sentences=None,
                sentence_support=None, is_supporting=supporting))
    return questions, documents


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


READERS: dict[str, Callable[..., tuple[Rows, Rows]]] = {
    "hotpotqa": read_hotpotqa,
    "musique": read_musique,
    "2wikimultihopqa": read_2wikimultihopqa,
    "documents": read_documents,
}


def validate_limit(limit: Any, key: str = "limit") -> int | None:
    """``limit`` when it is null or a non-negative int; else a :class:`ParameterError` naming
    ``key`` (a string ``'2'``, a float ``1.5`` or a bool ``true`` are refused, not coerced)."""
    if limit is None:
        return None
    if not _is(limit, int):
        raise ParameterError(key, f"must be null or a non-negative integer, got "
                                  f"{type(limit).__name__} {limit!r}")
    if limit < 0:
        raise ParameterError(key, f"must be null or a non-negative integer, got {limit}")
    return limit


def _summarise_skipped(path: Path, skipped: Rows) -> None:
    if not skipped:
        return
    kinds = Counter(row["kind"] for row in skipped)
    shown = ", ".join(row["path"] for row in skipped[:5]) + (", ..." if len(skipped) > 5 else "")
    logger.info("Skipped %d files in %s (%s): %s", len(skipped), path,
                ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())), shown)


def read_source_with_skipped(dataset: str, path: str | Path, source: str,
                             limit: int | None = None, *,
                             param_key: str | None = None) -> SourceRead:
    """Read one configured source with the reader of its dataset: its questions, documents
    and skipped files (only a ``documents`` folder skips files). ``param_key`` (e.g.
    ``ingest.sources[0]``) prefixes the key named by parameter errors."""
    prefix = f"{param_key}." if param_key else ""
    if dataset not in READERS:
        raise ParameterError(f"{prefix}dataset", f"unknown dataset {dataset!r} for {path}; "
                                                 f"expected one of {', '.join(READERS)}")
    limit = validate_limit(limit, f"{prefix}limit")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{prefix}path: {dataset} source not found: {path}")
    skipped: Rows = []
    if dataset == "documents":
        questions, documents = read_documents(path, source, limit, skipped)
        questions_path = path / QUESTIONS_FILE
    else:
        questions, documents = READERS[dataset](path, source, limit)
        questions_path = path
    if not questions:
        raise DatasetFormatError(questions_path, "file", (
            f"no questions selected ({prefix}limit is 0)" if limit == 0
            else "no questions: the file holds no records"))
    seen: set[str] = set()
    for index, row in enumerate(questions):
        if row["question_id"] in seen:
            raise DatasetFormatError(questions_path, f"record {index} (id {row['question_id']})",
                                     "duplicate question id")
        seen.add(row["question_id"])
    doc_ids: set[str] = set()
    for row in documents:
        if row["doc_id"] in doc_ids:
            raise DatasetFormatError(path, f"collection {row['collection_id']}",
                                     f"duplicate document id {row['doc_id']}")
        doc_ids.add(row["doc_id"])
    _summarise_skipped(path, skipped)
    logger.info("Read %d questions and %d documents from %s", len(questions), len(documents), path)
    return SourceRead(questions, documents, skipped)


def read_source(dataset: str, path: str | Path, source: str,
                limit: int | None = None, *, param_key: str | None = None) -> tuple[Rows, Rows]:
    """``(questions, documents)`` of one configured source (see
    :func:`read_source_with_skipped` for the files a documents folder skipped)."""
    result = read_source_with_skipped(dataset, path, source, limit, param_key=param_key)
    return result.questions, result.documents
