"""The analyst benchmark's questions from bundled MuSiQue **train** records (issue 49): the
same three kinds as ``analyst_folders.py``'s 2Wiki folders, one PDF and one question a record, by
fixed rules (no question picked by eye). MuSiQue's questions are written by people over
composed single-hop questions, not by 2Wiki's templates, so a folder of them measures the
ask path on questions of another form.

- ``text``: all 20 of the record's paragraphs (its supporting ones and MuSiQue's
  distractors); the answer is in a paragraph.
- ``table``: the supporting paragraphs left out; a facts table holds the record's two hops
  (MuSiQue writes some hops as ``subject >> relation``, a Wikidata triple; the second hop's
  ``#1`` is the first hop's answer): the answer is only in the table and needs its two rows.
- ``none``: the supporting paragraphs and the table left out.

Eligible: a two-hop answerable record whose question, answer and aliases fpdf2's latin-1 fonts
write as they are. A ``table`` question also needs both hops written as triples. The kinds
take turns; each turn takes the first eligible record no turn took whose paragraphs hold the
answer or an alias as a phrase (``text``) or hold none of them (``table``, ``none``) and, for
``table``, whose hops are triples; a record unfit for one turn stays for the next. A ``none``
question whose answer is a phrase of another file's paragraph is dropped (as for 2Wiki)."""
from __future__ import annotations

import re
from collections.abc import Iterable

from benchmarks.analyst_folders import KINDS, holds, is_latin, latin, without_answered_none


def eligible(record: dict) -> bool:
    """Whether ``record`` may be a question of some kind (module docstring)."""
    return (record.get("answerable", True) and len(record["question_decomposition"]) == 2
            and all(is_latin(t) for t in [record["question"], record["answer"],
                                        *record["answer_aliases"]]))


def facts(record: dict) -> list[list[str]]:
    """The record's hops as ``subject | relation | object`` rows when every hop is written
    ``subject >> relation`` (``#1`` in a later hop's subject: the first hop's answer), with
    latin-1 cells; else ``[]``."""
    rows: list[list[str]] = []
    for hop in record["question_decomposition"]:
        if hop["question"].count(">>") != 1:
            return []
        subject, relation = (part.strip() for part in hop["question"].split(">>"))
        if rows:
            subject = re.sub(r"\s+\)", ")", subject.replace("#1", rows[-1][2]))
        rows.append([subject, relation, hop["answer"].strip()])
    return rows if all(is_latin(cell) for row in rows for cell in row) else []


def _paragraphs(record: dict, kind: str) -> list[tuple[str, str]]:
    return [(latin(p["title"]), latin(p["paragraph_text"].strip()))
            for p in record["paragraphs"] if kind == "text" or not p["is_supporting"]]


def _fits(record: dict, kind: str) -> bool:
    paragraphs = _paragraphs(record, kind)
    held = any(holds(paragraphs, gold) for gold in [record["answer"], *record["answer_aliases"]])
    return held == (kind == "text") and (kind != "table" or bool(facts(record)))


def plan(records: Iterable[dict], per_kind: int) -> list[dict]:
    """``per_kind`` questions of each kind, as :func:`analyst_folders.plan`'s
    (with ``answers``: the record's ``answer_aliases``), by this module's rules."""
    pool = [r for r in records if eligible(r)]
    chosen: list[dict] = []
    while len(chosen) < per_kind * len(KINDS):
        kind = KINDS[len(chosen) % len(KINDS)]
        record = next((r for r in pool if _fits(r, kind)), None)
        if record is None:
            raise ValueError(f"too few eligible MuSiQue records for {per_kind} {kind} "
                             "questions")
        pool.remove(record)
        chosen.append({"id": record["id"], "file": f"file_{len(chosen) + 1:02d}.pdf",
                       "kind": kind, "question": record["question"],
                       "answer": record["answer"], "answers": record["answer_aliases"],
                       "paragraphs": _paragraphs(record, kind),
                       "facts": facts(record) if kind == "table" else []})
    return without_answered_none(chosen)
