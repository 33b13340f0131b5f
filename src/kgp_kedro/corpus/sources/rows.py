"""Question and document rows in the layout of :mod:`kgp_kedro.corpus.schema`, built from
raw records by every reader."""
from __future__ import annotations

from typing import Any

from kgp_kedro.corpus.sources.records import _Record

Rows = list[dict[str, Any]]


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
                  is_supporting: bool, layout: str | None = None) -> dict[str, Any]:
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
        "layout": layout,
    }
