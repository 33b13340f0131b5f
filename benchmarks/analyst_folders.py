"""The analyst folders (issue 49): a folder of PDFs with gold answers made from bundled
2WikiMultihopQA **train** records by fixed rules (no question picked by eye; MuSiQue's:
``analyst_musique.py``), scored by ``bench_ask.py``. Generated data, not a chooser: the
ask settings are chosen on the real documents of ``data/real_docs``.

Each chosen record becomes one PDF (its paragraphs under their titles, three a page) and one
question, of one of three kinds, assigned in turn to the eligible records in file order:

- ``text``: all the record's paragraphs (the supporting ones and the dataset's distractors);
  no table. The answer is in a paragraph.
- ``table``: the supporting paragraphs left out; a facts table after them holds the
  record's evidence triples (``subject | relation | object``, 2Wiki's ``evidences``). The
  answer is only in the table, and needs its two rows (A r1 B; B r2 answer).
- ``none``: the supporting paragraphs and the table left out: the answer is in no document.

Eligible: a compositional or inference record whose two evidence triples chain to the answer
(A r1 B, B r2 answer) and whose question, answer and evidences fpdf2's latin-1 fonts write as
they are (the paragraphs' other characters: :func:`latin`). A ``text`` question's answer
(normalized) must be a phrase of its paragraphs, a ``table`` or ``none`` question's not: else
the record is passed over and the next eligible one takes its turn. A ``none`` question
whose answer is a phrase of another file's paragraph is dropped (counted in the log)."""
from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from kgp_kedro.evaluation.qa_metrics import normalize_answer

logger = logging.getLogger(__name__)

KINDS = ("text", "table", "none")
FACTS_HEADER = ["subject", "relation", "object"]
PARAGRAPHS_A_PAGE = 3


_PUNCTUATION = str.maketrans({"–": "-", "—": "-", "‐": "-", "’": "'", "‘": "'", "“": '"',
                              "”": '"', "…": "..."})


def is_latin(text: str) -> bool:
    """Whether fpdf2's latin-1 core fonts write ``text`` as it is."""
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def latin(text: str) -> str:
    """``text`` as fpdf2's latin-1 core fonts write it: dashes and curly quotes as their
    ASCII forms, any other character outside latin-1 as ``?``."""
    return text.translate(_PUNCTUATION).encode("latin-1", "replace").decode("latin-1")


def chained(record: dict) -> bool:
    """Whether ``record`` is eligible (module docstring)."""
    ev = record["evidences"]
    return (record["type"] in ("compositional", "inference") and len(ev) == 2
            and ev[0][2] == ev[1][0] and ev[1][2] == record["answer"]
            and all(is_latin(t) for t in [record["question"], record["answer"], *sum(ev, [])]))


def _paragraphs(record: dict, kind: str) -> list[tuple[str, str]]:
    supporting = {title for title, _ in record["supporting_facts"]}
    return [(latin(title), latin(" ".join(s.strip() for s in sentences)))
            for title, sentences in record["context"]
            if kind == "text" or title not in supporting]


def holds(paragraphs: list[tuple[str, str]], answer: str) -> bool:
    """Whether ``answer`` (normalized) is a phrase of one of ``paragraphs`` (normalized)."""
    return any(f" {normalize_answer(answer)} " in f" {normalize_answer(text)} "
               for _, text in paragraphs)


def plan(records: Iterable[dict], per_kind: int) -> list[dict]:
    """``per_kind`` questions of each kind: ``{"id", "file", "kind", "question", "answer",
    "paragraphs", "facts"}``, the kinds in turn over the eligible records in order."""
    chosen: list[dict] = []
    eligible = (r for r in records if chained(r))
    while len(chosen) < per_kind * len(KINDS):
        kind = KINDS[len(chosen) % len(KINDS)]
        record = next(eligible, None)
        if record is None:
            raise ValueError(f"too few eligible records for {per_kind} questions of each kind")
        paragraphs = _paragraphs(record, kind)
        if holds(paragraphs, record["answer"]) != (kind == "text"):
            continue
        chosen.append({"id": record["_id"], "file": f"file_{len(chosen) + 1:02d}.pdf",
                       "kind": kind, "question": record["question"],
                       "answer": record["answer"], "paragraphs": paragraphs,
                       "facts": record["evidences"] if kind == "table" else []})
    return without_answered_none(chosen)


def golds(item: Mapping) -> list[str]:
    """A question's gold answer and its other accepted answers (``answers``, the documents
    format's key: MuSiQue's ``answer_aliases``; 2Wiki has none)."""
    return [item["answer"], *item.get("answers", [])]


def without_answered_none(chosen: list[dict]) -> list[dict]:
    """``chosen`` less each ``none`` question whose answer (or another of its answers) is a
    phrase of any chosen file's paragraph; logs the kinds kept and the number dropped."""
    everything = [p for item in chosen for p in item["paragraphs"]]
    kept = [item for item in chosen if item["kind"] != "none"
            or not any(holds(everything, gold) for gold in golds(item))]
    logger.info("analyst benchmark: %d questions (%s); %d dropped (the answer of a none "
                "question in another file)", len(kept), ", ".join(
                    f"{sum(i['kind'] == k for i in kept)} {k}" for k in KINDS),
                len(chosen) - len(kept))
    return kept


def render_pdf(path: Path, paragraphs: list[tuple[str, str]], facts: list[list[str]]) -> None:
    """Paragraphs under their titles, :data:`PARAGRAPHS_A_PAGE` a page; then, when ``facts``
    has rows, a heading "Facts" and the rows as a ruled table under :data:`FACTS_HEADER`, on
    the last page when they fit there, else on a page of their own."""
    from fpdf import FPDF

    pdf = FPDF(format=(148, 210))   # A5 in mm
    pdf.set_auto_page_break(True, 15)
    for i, (title, text) in enumerate(paragraphs):
        if i % PARAGRAPHS_A_PAGE == 0:
            pdf.add_page()
        pdf.set_font("Helvetica", "B", 13)
        pdf.multi_cell(0, 7, title, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
    if facts:
        if not paragraphs or pdf.get_y() + 7 * (len(facts) + 2) > pdf.h - 20:
            pdf.add_page()   # the table on one page
        pdf.set_font("Helvetica", "B", 13)
        pdf.multi_cell(0, 7, "Facts", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
        pdf.set_font("Helvetica", size=10)
        with pdf.table() as table:
            for cells in [FACTS_HEADER, *facts]:
                row = table.row()
                for cell in cells:
                    row.cell(cell)
    pdf.output(str(path))


def make_folder(out: Path, records: Iterable[dict], per_kind: int,
                planner: Callable[[Iterable[dict], int], list[dict]] = plan) -> list[dict]:
    """The benchmark folder ``out``: one PDF per question of ``planner`` (:func:`plan` for 2Wiki
    records, :func:`~kgp_kedro.asking.benchmark_musique.plan` for MuSiQue's) and
    ``questions.jsonl`` (``id``, ``question``, ``answer``, ``answers`` where the record has
    other accepted answers, ``supporting_docs``: its file unless the kind is ``none``, and
    ``kind``); returns those records."""
    out.mkdir(parents=True, exist_ok=True)
    questions = []
    for item in planner(records, per_kind):
        render_pdf(out / item["file"], item["paragraphs"], item["facts"])
        questions.append({"id": item["id"], "question": item["question"],
                          "answer": item["answer"],
                          **({"answers": item["answers"]} if item.get("answers") else {}),
                          "kind": item["kind"],
                          "supporting_docs": [] if item["kind"] == "none" else [item["file"]]})
    (out / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return questions
