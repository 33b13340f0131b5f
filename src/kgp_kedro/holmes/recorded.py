"""What HOLMES' reader read, recorded beside a benchmark's answers
(``results/<benchmark>/read_facts.csv.gz``), so its prompts can be rebuilt on any CPU.

The facts in a HOLMES prompt come through steps that rank by float scores (the auxiliary
schema's relation similarities, Eq. 2's pruning, the complementary facts' scores), so another
CPU, or vectors one bit apart, can break a near-tie the other way and build a prompt the reply
store lacks. A benchmark run therefore records, for each HOLMES method and question, each
reader call's verbalised facts in prompt order with the question's entities and relations
(the prompt's other parts), the documents its context came from and the LLM calls made before
reading (:data:`READ_FACTS_COLUMNS`); ``holmes.replay`` hands them back to the reader instead
of building the KG, the schema and the pruned facts again. A call beyond the recorded ones
(the complementary second call) is made only where one was recorded: the replies, from the
store, are the recorded run's, so its decisions are too."""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from kgp_kedro.plumbing.recordings import (READ_FACTS_FILE, read_recording, rows_by_question,
                                            update_recording)

FILENAME = READ_FACTS_FILE
KEY = ["method", "source", "question_id"]
# call: the reader call (0 the first, 1 the complementary one); rank -1: a call with no fact
READ_FACTS_COLUMNS = [*KEY, "call", "rank", "text", "entities", "relations", "doc_ids",
                      "other_calls"]


@dataclass(frozen=True)
class ReadFacts:
    """One question's reader input for one HOLMES method, as recorded."""

    calls: list[list[str]]    # each reader call's verbalised facts, in prompt order
    entities: list[str]
    relations: list[str]
    doc_ids: list[str]        # the documents the facts came from (the answer's contexts)
    other_calls: int          # LLM calls before reading (extraction, schema)


def read_facts_rows(method: str, source: str, question_id: str, read: ReadFacts
                    ) -> list[dict]:
    """The recording's rows of one question and method."""
    common = {"method": method, "source": source, "question_id": str(question_id),
              "entities": json.dumps(read.entities, ensure_ascii=False),
              "relations": json.dumps(read.relations, ensure_ascii=False),
              "doc_ids": json.dumps(read.doc_ids, ensure_ascii=False),
              "other_calls": read.other_calls}
    rows = []
    for call, lines in enumerate(read.calls):
        rows += ([{**common, "call": call, "rank": rank, "text": text}
                  for rank, text in enumerate(lines)]
                 or [{**common, "call": call, "rank": -1, "text": ""}])
    return rows


def read_recorded_facts(path: str | Path) -> pd.DataFrame:
    """A recording (empty with :data:`READ_FACTS_COLUMNS` when the file does not exist)."""
    return read_recording(path, READ_FACTS_COLUMNS, ["call", "rank", "other_calls"], "HOLMES' reader input")


def record_read_facts(path: str | Path, rows: Iterable[dict]) -> pd.DataFrame:
    """Add ``rows`` (:func:`read_facts_rows`) to the recording at ``path``, replacing the
    questions and methods they hold (gzipped, no timestamp, written atomically under the
    benchmark's lock). Returns the whole recording."""
    new = pd.DataFrame(list(rows), columns=READ_FACTS_COLUMNS)
    return update_recording(path, new, KEY, [*KEY, "call", "rank"], read_recorded_facts)


def replayed_read_facts(recording: pd.DataFrame, method: str, questions: pd.DataFrame,
                        path: str | Path) -> dict[str, ReadFacts]:
    """``{question_id: ReadFacts}`` of ``method`` for ``questions``, read from a recording. A
    method or question it lacks is an error naming the file, raised before any call."""
    wanted = questions["question_id"].astype(str).tolist()
    by_question = rows_by_question(recording, method, wanted, path, "holmes.replay",
                                   "reader input")
    out = {}
    for qid in wanted:
        rows = by_question[qid].sort_values(["call", "rank"])
        first = rows.iloc[0]
        calls = [group.loc[group["rank"] >= 0, "text"].tolist()
                 for _, group in rows.groupby("call", sort=True)]
        out[qid] = ReadFacts(calls, json.loads(first["entities"]),
                             json.loads(first["relations"]), json.loads(first["doc_ids"]),
                             int(first["other_calls"]))
    return out

