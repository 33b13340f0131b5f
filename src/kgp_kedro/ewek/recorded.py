"""What EWEK-QA's composer read, recorded beside a benchmark's answers
(``results/<benchmark>/composed.csv.gz``), so its prompts can be rebuilt on any CPU.

The composer's numbered quotes come from steps that rank by float scores (the MiniLM evidence
spans, the deduplicator's cosine threshold, ToG-E's embedding scorer, the cross-encoder), so
another CPU can break a near-tie the other way and build a prompt the reply store lacks. A
benchmark run therefore records, for each EWEK-QA method and question, the references the
composer got (:data:`COMPOSED_COLUMNS`: number, kind, text, the passages each covers, the
search's LLM calls, the triples' and quotes' counts, what ran under the method's name);
``ewek.replay`` hands them back to the composer instead of selecting quotes and searching the
KG again (the retrievers' own recordings: :mod:`kgp_kedro.retrievers.recorded`)."""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from kgp_kedro.ewek.composer import Reference
from kgp_kedro.plumbing.recordings import (COMPOSED_FILE, read_recording, rows_by_question,
                                            update_recording)

FILENAME = COMPOSED_FILE
KEY = ["method", "source", "question_id"]
# number -1: a question whose composer got no reference (its one row)
COMPOSED_COLUMNS = [*KEY, "number", "kind", "text", "passage_ids", "quote_id", "calls",
                    "n_triples", "n_quotes", "ran_as"]


@dataclass(frozen=True)
class Composed:
    """One question's composer input for one method, as recorded."""

    refs: list[Reference]
    calls: int        # the KG search's LLM calls (ToG's), before the composer's
    n_triples: int
    n_quotes: int
    ran_as: str


def composed_rows(method: str, source: str, question_id: str, composed: Composed
                  ) -> list[dict]:
    """The recording's rows of one question and method."""
    common = {"method": method, "source": source, "question_id": str(question_id),
              "calls": composed.calls, "n_triples": composed.n_triples,
              "n_quotes": composed.n_quotes, "ran_as": composed.ran_as}
    if not composed.refs:
        return [{**common, "number": -1, "kind": "", "text": "", "passage_ids": "[]",
                 "quote_id": ""}]
    return [{**common, "number": r.number, "kind": r.kind, "text": r.text,
             "passage_ids": json.dumps(list(r.passage_ids), ensure_ascii=False),
             "quote_id": r.quote_id} for r in composed.refs]


def read_composed(path: str | Path) -> pd.DataFrame:
    """A recording (empty with :data:`COMPOSED_COLUMNS` when the file does not exist)."""
    return read_recording(path, COMPOSED_COLUMNS, ["number", "calls", "n_triples", "n_quotes"], "EWEK-QA's composer input")


def record_composed(path: str | Path, rows: Iterable[dict]) -> pd.DataFrame:
    """Add ``rows`` (:func:`composed_rows`) to the recording at ``path``, replacing the
    questions and methods they hold (gzipped, no timestamp, written atomically under the
    benchmark's lock). Returns the whole recording."""
    new = pd.DataFrame(list(rows), columns=COMPOSED_COLUMNS)
    return update_recording(path, new, KEY, [*KEY, "number"], read_composed)


def replayed_composed(recording: pd.DataFrame, methods: Sequence[str],
                      questions: pd.DataFrame, path: str | Path
                      ) -> dict[str, dict[str, Composed]]:
    """``{method: {question_id: Composed}}`` for ``questions``, read from a recording. A
    method or question it lacks is an error naming the file, raised before any call."""
    out: dict[str, dict[str, Composed]] = {}
    wanted = questions["question_id"].astype(str).tolist()
    for method in methods:
        by_question = rows_by_question(recording, method, wanted, path, "ewek.replay",
                                       "composer input")
        out[method] = {}
        for qid in wanted:
            rows = by_question[qid].sort_values("number")
            first = rows.iloc[0]
            refs = [Reference(int(r.number), r.kind, r.text, tuple(json.loads(r.passage_ids)),
                              r.quote_id) for r in rows.itertuples(index=False) if r.number >= 0]
            out[method][qid] = Composed(refs, int(first["calls"]), int(first["n_triples"]),
                                        int(first["n_quotes"]), first["ran_as"])
    return out
