"""MuSiQue: JSONL records keyed by ``id`` whose ``paragraphs`` carry an ``idx``.

Quirks handled (``shared/data/README.md``): MuSiQue titles repeat inside a question (documents
are keyed by ``idx``, and an ``idx`` repeated within a record is an error); answers have
aliases; ``is_supporting`` may be missing or ``null`` (not supporting).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgp_kedro.corpus.sources.base import DATASET_READERS, DatasetReader
from kgp_kedro.corpus.sources.records import _is, _Record, _records
from kgp_kedro.corpus.sources.rows import Rows, _document_row, _question_row


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


@DATASET_READERS.register("musique")
class MusiqueReader(DatasetReader):
    def read(self, path: Path, source: str, limit: int | None, skipped: Rows
             ) -> tuple[Rows, Rows]:
        return read_musique(path, source, limit)
