"""Readers for the native formats of HotpotQA, MuSiQue, 2WikiMultihopQA and user documents.

Each reader returns ``(questions, documents)``: two lists of row dicts in the layout of
:mod:`kgp_kedro.corpus.schema`, holding each question's *own* documents (its context). The
negative documents of paper §8.1 are added afterwards by
:func:`kgp_kedro.corpus.collections.build_collections`.

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
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kgp_kedro.corpus.errors import DatasetFormatError

logger = logging.getLogger(__name__)

Rows = list[dict[str, Any]]

DOCUMENT_SUFFIXES = (".txt", ".md", ".markdown")


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


def _load_json_list(path: Path) -> list[Any]:
    try:
        with path.open(encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as exc:
        raise DatasetFormatError(path, f"line {exc.lineno}", f"invalid JSON ({exc.msg})") from exc
    if not isinstance(data, list):
        raise DatasetFormatError(path, "top level", "expected a JSON list of question records")
    return data


def _iter_jsonl(path: Path) -> Iterator[tuple[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield f"line {line_no}", json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetFormatError(path, f"line {line_no}", f"invalid JSON ({exc.msg})") from exc


class _Record:
    """Typed access to one raw record, raising errors that name the file and the record."""

    def __init__(self, path: Path, where: str, raw: Any, id_key: str) -> None:
        self.path = path
        self.where = where
        if not isinstance(raw, dict):
            self.fail(f"expected a JSON object, got {type(raw).__name__}")
        self.raw = raw
        rid = raw.get(id_key)
        self.id = str(rid) if rid is not None else None
        if self.id:
            self.where = f"{where} (id {self.id})"

    def fail(self, reason: str) -> None:
        raise DatasetFormatError(self.path, self.where, reason)

    def get(self, key: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
        if key not in self.raw or self.raw[key] is None:
            if optional:
                return None
            self.fail(f"missing field '{key}'")
        value = self.raw[key]
        if not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            self.fail(f"field '{key}' should be {names}, got {type(value).__name__}")
        return value


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
        if rec.id is None:
            rec.fail(f"missing field '{id_key}'")
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
        if not (isinstance(fact, list) and len(fact) == 2 and isinstance(fact[0], str)
                and isinstance(fact[1], int)):
            rec.fail(f"malformed supporting fact {fact!r} (expected [title, sentence id])")
        supporting.setdefault(fact[0], set()).add(fact[1])

    docs: Rows = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    titles = set()
    for position, item in enumerate(context):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], list) and all(isinstance(s, str) for s in item[1])):
            rec.fail(f"malformed context paragraph {position} (expected [title, [sentence, ...]])")
        title, sentences = item
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
    evidences = rec.get("evidences", list, optional=True) or []
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


def read_musique(path: Path, source: str, limit: int | None = None) -> tuple[Rows, Rows]:
    """Read MuSiQue (JSONL) records; paragraphs are keyed by ``idx``, never by title."""
    questions: Rows = []
    documents: Rows = []
    for rec in _records(path, limit, "id"):
        answer = rec.get("answer", str).strip()
        aliases = rec.get("answer_aliases", list, optional=True) or []
        decomposition = rec.get("question_decomposition", list, optional=True) or []
        row = _question_row(
            rec, source, "musique", answer=answer, answers=[answer, *[a.strip() for a in aliases]],
            qtype=rec.id.split("__", 1)[0], n_hops=len(decomposition) or None,
            meta=json.dumps({"question_decomposition": decomposition,
                             "answerable": rec.get("answerable", bool, optional=True)}))
        questions.append(row)
        paragraphs = rec.get("paragraphs", list)
        if not paragraphs:
            rec.fail("no paragraphs")
        for position, par in enumerate(paragraphs):
            if not isinstance(par, dict):
                rec.fail(f"paragraph {position} is not an object")
            missing = [k for k in ("idx", "title", "paragraph_text") if k not in par]
            if missing:
                rec.fail(f"paragraph {position} lacks {', '.join(missing)}")
            documents.append(_document_row(
                source, row["collection_id"], f"{source}/{rec.id}/{par['idx']}", par["title"],
                position, text=par["paragraph_text"].strip(), sentences=None,
                sentence_support=None, is_supporting=bool(par.get("is_supporting", False))))
    return questions, documents


_HEADING = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def read_documents(path: Path, source: str, limit: int | None = None) -> tuple[Rows, Rows]:
    """Read a folder of user documents (.txt/.md, recursively) and its ``questions.jsonl``.

    Each line of ``questions.jsonl``: ``{"id": ..., "question": ..., "answer": ...(optional),
    "answers": [...](optional), "supporting_docs": [relative file names](optional)}``. Every
    question is asked over the whole folder, so all questions share one collection.
    A markdown document's title is its first ``# heading``, otherwise the file name.
    """
    if not path.is_dir():
        raise DatasetFormatError(path, "folder", "expected a folder of .txt/.md documents")
    questions_file = path / "questions.jsonl"
    if not questions_file.is_file():
        raise DatasetFormatError(questions_file, "file", "missing questions file")
    files = sorted(p for p in path.rglob("*") if p.suffix.lower() in DOCUMENT_SUFFIXES)
    if not files:
        raise DatasetFormatError(path, "folder", "no .txt/.md documents found")
    collection_id = f"{source}/all"
    names = {p.relative_to(path).as_posix() for p in files}

    questions: Rows = []
    supporting: set[str] = set()
    for rec in _records(questions_file, limit, "id"):
        docs = rec.get("supporting_docs", list, optional=True) or []
        unknown = sorted(set(docs) - names)
        if unknown:
            rec.fail(f"supporting_docs not in {path}: {', '.join(unknown)}")
        supporting.update(docs)
        answer = (rec.get("answer", str, optional=True) or "").strip()
        answers = rec.get("answers", list, optional=True) or []
        row = _question_row(rec, source, "documents", answer=answer, answers=[answer, *answers],
                            meta=json.dumps({"supporting_docs": docs}))
        row["collection_id"] = collection_id
        questions.append(row)

    documents: Rows = []
    for position, file in enumerate(files):
        name = file.relative_to(path).as_posix()
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise DatasetFormatError(file, "file", f"not UTF-8 text ({exc.reason})") from exc
        heading = _HEADING.search(text) if file.suffix.lower() != ".txt" else None
        title = heading.group(1) if heading else file.stem
        documents.append(_document_row(
            source, collection_id, f"{source}/{name}", title, position, text=text.strip(),
            sentences=None, sentence_support=None, is_supporting=name in supporting))
    return questions, documents


READERS: dict[str, Callable[[Path, str, int | None], tuple[Rows, Rows]]] = {
    "hotpotqa": read_hotpotqa,
    "musique": read_musique,
    "2wikimultihopqa": read_2wikimultihopqa,
    "documents": read_documents,
}


def read_source(dataset: str, path: str | Path, source: str,
                limit: int | None = None) -> tuple[Rows, Rows]:
    """Read one configured source with the reader of its dataset."""
    if dataset not in READERS:
        raise ValueError(f"unknown dataset {dataset!r} for {path}; expected one of "
                         f"{', '.join(READERS)}")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{dataset} source not found: {path}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be null or >= 0, got {limit} for {path}")
    questions, documents = READERS[dataset](path, source, limit)
    seen: set[str] = set()
    for index, row in enumerate(questions):
        if row["question_id"] in seen:
            raise DatasetFormatError(path, f"record {index} (id {row['question_id']})",
                                     "duplicate question id")
        seen.add(row["question_id"])
    logger.info("Read %d questions and %d documents from %s", len(questions), len(documents), path)
    return questions, documents
