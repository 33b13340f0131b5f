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

The code lives in modules named for what they do: :mod:`.records` (JSON/JSONL loading as
UTF-8, typed record access, the ``limit`` check), :mod:`.rows` (question and document rows),
:mod:`.sentence_datasets` (HotpotQA, 2Wiki), :mod:`.musique` and :mod:`.documents` (a
folder of user documents, which stays inside itself); each dataset module lists the quirks
of its format (``shared/data/README.md``) that it handles and registers its reader in
:data:`~kgp_kedro.corpus.sources.base.DATASET_READERS` (:mod:`.base`: a new format is one
module). :func:`read_source` finds the reader of a source's dataset and adds the checks made
across a whole source.
"""
from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from kgp_kedro.corpus.errors import DatasetFormatError, ParameterError
from kgp_kedro.corpus.sources.base import DATASET_READERS, DatasetReader
from kgp_kedro.corpus.sources.documents import (
    DOCUMENT_SUFFIXES,
    QUESTIONS_FILE,
    SKIP_KINDS,
    SKIPPED_COLUMNS,
    read_documents,
    scan_documents_folder,
)
from kgp_kedro.corpus.sources.musique import read_musique
from kgp_kedro.corpus.sources.records import validate_limit
from kgp_kedro.corpus.sources.rows import Rows
from kgp_kedro.corpus.sources.sentence_datasets import (
    join_sentences,
    read_2wikimultihopqa,
    read_hotpotqa,
)

__all__ = [
    "DATASET_READERS", "DOCUMENT_SUFFIXES", "QUESTIONS_FILE", "SKIPPED_COLUMNS", "SKIP_KINDS",
    "DatasetReader", "Rows", "SourceRead", "join_sentences", "read_2wikimultihopqa", "read_documents", "read_hotpotqa",
    "read_musique", "read_source", "read_source_with_skipped", "scan_documents_folder",
    "validate_limit",
]

logger = logging.getLogger(__name__)


@dataclass
class SourceRead:
    """What one source gave: question rows, document rows, and the files it skipped."""

    questions: Rows
    documents: Rows
    skipped: Rows = field(default_factory=list)


def _summarise_skipped(path: Path, skipped: Rows) -> None:
    if not skipped:
        return
    kinds = Counter(row["kind"] for row in skipped)
    shown = ", ".join(row["path"] for row in skipped[:5]) + (", ..." if len(skipped) > 5 else "")
    logger.info("Skipped %d files in %s (%s): %s", len(skipped), path,
                ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())), shown)


def require_source_path(dataset: str, path: str | Path, param_key: str | None = None) -> Path:
    """``path`` as a ``Path``; ``FileNotFoundError`` naming ``<param_key>.path`` when it does not
    exist (checked before anything is read)."""
    path = Path(path)
    if not path.exists():
        prefix = f"{param_key}." if param_key else ""
        raise FileNotFoundError(f"{prefix}path: {dataset} source not found: {path}")
    return path


def read_source_with_skipped(dataset: str, path: str | Path, source: str,
                             limit: int | None = None, *, param_key: str | None = None,
                             questions: str | list[str] | None = None,
                             parse_cache: str | None = None) -> SourceRead:
    """Read one configured source with the reader of its dataset: its questions, documents
    and skipped files (only a ``documents`` folder skips files). ``param_key`` (e.g.
    ``ingest.sources[0]``) prefixes the key named by parameter errors; ``questions`` (a
    documents folder only) replaces the folder's ``questions.jsonl`` and ``parse_cache`` keeps
    its files' parses (:func:`~kgp_kedro.corpus.sources.documents.read_documents`); a reader
    that takes neither ignores them."""
    prefix = f"{param_key}." if param_key else ""
    try:
        reader = DATASET_READERS.get(dataset)()
    except KeyError:
        raise ParameterError(f"{prefix}dataset", f"unknown dataset {dataset!r} for {path}; "
                                                 f"expected one of "
                                                 f"{', '.join(DATASET_READERS.names())}") from None
    limit = validate_limit(limit, f"{prefix}limit")
    path = require_source_path(dataset, path, param_key)
    skipped: Rows = []
    given = {key: value for key, value in (("questions", questions),
                                           ("parse_cache", parse_cache))
             if value is not None and key in reader.options}
    questions_path = Path(questions) if isinstance(questions, str) else reader.questions_path(path)
    questions, documents = reader.read(path, source, limit, skipped, **given)
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
