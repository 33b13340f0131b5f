"""Scores of cited answers (``kedro run --env ask``'s ``ask_answers``) against a folder's gold:
each question's kind (``none``: answered by no file), its accepted answers and the files (and
pages) holding its answer.

Per question: ``correct`` (a gold answer inside an answer not marked *not found*,
:func:`holds_answer`, the answer's ``[n]`` citations taken out first: a gold ".1" is no
"[1]"), ``em`` and ``f1``,
``raw_correct`` (the same on the reader's reply as it came, before any check), ``file_cited``
and ``page_cited`` (a citation names a gold file, a gold file and page), ``abstained``
(marked *not found*), ``repeats_instruction`` (the reply holds :data:`ECHO` words in a row of
the instruction it was asked with, its named reply for a question not answered aside),
seconds; the claims the check removed and re-attributed. :func:`summary` gives the figures
issue 64 sets goals on."""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from kgp_kedro.evaluation.qa_metrics import contains_answer, exact_match, f1_score

ECHO = 5   # words in a row of the instruction that make a reply an echo of it (the old
# example, "The plant opened in 1998", is five)
_WORD = re.compile(r"\w+")
_CITE = re.compile(r"\[\d+(?:\s*,\s*\d+)*\]")


@dataclass(frozen=True)
class Gold:
    """A question's gold: its ``kind``, the answers accepted (none for ``none``), and where
    its answer is (``files``; ``pages``: ``(file, page)`` pairs where the file has pages)."""

    kind: str
    answers: Sequence[str]
    files: frozenset[str] = frozenset()
    pages: frozenset[tuple[str, int]] = field(default_factory=frozenset)


def _grams(text: str, n: int) -> set[tuple[str, ...]]:
    words = [w.casefold() for w in _WORD.findall(_CITE.sub(" ", text))]
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def repeats(reply: str, instruction: str, allowed: str = "") -> bool:
    """Whether ``reply`` holds :data:`ECHO` words in a row of ``instruction`` that are not
    words in a row of ``allowed`` (the instruction's named reply, "Not found in the
    documents.")."""
    return bool((_grams(reply, ECHO) & _grams(instruction, ECHO)) - _grams(allowed, ECHO))


def holds_answer(text: str, accepted: Sequence[str]) -> float:
    """1.0 when an accepted answer is in ``text``: as whole words after the SQuAD
    normalisation (:func:`~kgp_kedro.evaluation.qa_metrics.contains_answer`), or as written
    (case aside) between characters that are no letters or digits, so that a port inside a URL
    ("http://hostname:631") or a value inside code holds it, which the normalisation, dropping
    the punctuation between them, glues to its neighbours ("hostname631")."""
    folded = text.casefold()
    return float(contains_answer(text, accepted) or any(
        re.search(rf"(?<!\w){re.escape(a.casefold())}(?!\w)", folded)
        for a in accepted if a.strip()))


def _count(claims: str, verdict: str) -> int:
    return sum(c["verdict"] == verdict for c in json.loads(claims))


def score(answers: pd.DataFrame, gold: Mapping[str, Gold], instruction: str,
          allowed: str = "") -> pd.DataFrame:
    """One row per answer (module docstring); a question without gold is an error naming
    it."""
    missing = sorted(set(answers["question_id"]) - set(gold))
    if missing:
        raise ValueError(f"no gold for questions {', '.join(map(str, missing))}")
    rows = []
    for row in answers.itertuples(index=False):
        g = gold[row.question_id]
        said, replied = _CITE.sub(" ", row.answer), _CITE.sub(" ", row.raw_response)
        found = row.mark != "not found"
        cited = [(c["file"], c["page"]) for c in json.loads(row.citations)] if found else []
        accepted = list(g.answers)
        rows.append({
            "question_id": row.question_id, "kind": g.kind,
            "gold": accepted[0] if accepted else "", "answer": row.answer, "mark": row.mark,
            "correct": holds_answer(said, accepted) if found and accepted else 0.0,
            "em": exact_match(said, accepted) if found and accepted else 0.0,
            "f1": f1_score(said, accepted) if found and accepted else 0.0,
            "raw_correct": holds_answer(replied, accepted) if accepted else 0.0,
            "file_cited": any(f in g.files for f, _ in cited),
            "page_cited": any((f, p) in g.pages for f, p in cited),
            "abstained": not found,
            "repeats_instruction": repeats(row.raw_response, instruction, allowed),
            "removed": _count(row.claims, "unsupported"),
            "reattributed": _count(row.claims, "re-attributed"),
            "seconds": (row.retrieval_ms + row.latency_ms) / 1000})
    return pd.DataFrame(rows)


def summary(scored: pd.DataFrame) -> dict[str, float]:
    """Over the answerable questions: correct, the reader's replies correct before the check,
    file and page cited (pages over those whose gold names one), wrongly *not found*, EM, F1;
    over the ``none`` ones: *not found* (recall), and its precision over every *not found*;
    replies repeating the instruction; seconds a question; correct per answerable kind."""
    answerable = scored[scored["kind"] != "none"]
    none, abstained = scored[scored["kind"] == "none"], scored[scored["abstained"]]
    hits = int((abstained["kind"] == "none").sum())

    def share(frame: pd.DataFrame, column: str) -> float:
        return float(frame[column].mean()) if len(frame) else float("nan")
    out = {"questions": len(scored), "answerable": len(answerable), "none": len(none),
           "correct": share(answerable, "correct"),
           "raw_correct": share(answerable, "raw_correct"),
           "file_cited": share(answerable, "file_cited"),
           "page_cited": share(answerable, "page_cited"),
           "wrongly_not_found": share(answerable, "abstained"),
           "em": share(answerable, "em"), "f1": share(answerable, "f1"),
           "not_found_recall": hits / len(none) if len(none) else float("nan"),
           "not_found_precision": hits / len(abstained) if len(abstained) else float("nan"),
           "repeats_instruction": int(scored["repeats_instruction"].sum()),
           "seconds": share(scored, "seconds")}
    for kind, frame in answerable.groupby("kind"):
        out[f"correct_{kind}"] = share(frame, "correct")
    return out
