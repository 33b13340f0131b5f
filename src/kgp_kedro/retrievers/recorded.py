"""The retrieved passage ids a benchmark's prompts were built from, recorded beside its answers
(``results/<benchmark>/retrieved.csv.gz``), so the prompts can be rebuilt on any CPU.

A benchmark run records, for each retrieval method and question it read, the rows the reader
used (:data:`RECORDED_COLUMNS`: the rank, the passage id, the reasoning path and the
retriever's model calls). ``retrieve.replay`` hands these rows to the reader instead of
retrieving again, so a replay rebuilds the committed prompts whatever the CPU's float kernels
or the encoder's dtype; :func:`compare` counts how many of them a rerun of the retrieval here
changes (``python -m kgp_kedro.retrievers.recorded RECORDING``, after a
``kedro run --pipelines retrieve``)."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from kgp_kedro.plumbing.recordings import (RETRIEVED_FILE, read_recording, rows_by_question,
                                            update_recording)
from kgp_kedro.retrievers.run import RETRIEVED_COLUMNS

FILENAME = RETRIEVED_FILE
KEY = ["method", "source", "question_id"]
RECORDED_COLUMNS = [*KEY, "rank", "passage_id", "path", "calls"]


def recorded_rows(retrieved: pd.DataFrame, question_ids: Iterable[str]) -> pd.DataFrame:
    """The rows of a ``retrieved_<method>`` table to record for ``question_ids``: every row
    of those questions (a question without a passage keeps its null row, rank -1), its
    ``path`` left empty where it is the passage alone."""
    rows = retrieved[retrieved["question_id"].astype(str).isin(set(map(str, question_ids)))]
    rows = rows.astype({"question_id": str}).copy()
    rows["passage_id"] = rows["passage_id"].fillna("")
    rows["path"] = rows["path"].fillna("").where(rows["path"] != rows["passage_id"], "")
    return rows[RECORDED_COLUMNS]


def read_recorded(path: str | Path) -> pd.DataFrame:
    """A recording (empty with :data:`RECORDED_COLUMNS` when the file does not exist)."""
    return read_recording(path, RECORDED_COLUMNS, ["rank", "calls"], "retrieved passages")


def record(path: str | Path, tables: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Add the rows of ``tables`` (:func:`recorded_rows`) to the recording at ``path``,
    replacing the questions and methods they hold, sorted and gzipped with no timestamp (the
    same rows give the same bytes); written atomically under the benchmark's lock. Returns
    the whole recording."""
    new = pd.concat([t for t in tables if len(t)] or [pd.DataFrame(columns=RECORDED_COLUMNS)],
                    ignore_index=True)
    return update_recording(path, new, KEY, [*KEY, "rank"], read_recorded)


def replayed(questions: pd.DataFrame, recording: pd.DataFrame, method: str,
             path: str | Path) -> pd.DataFrame:
    """``retrieved_<method>`` rebuilt from a recording for ``questions``: the recorded ranks,
    passages, paths and model calls (no score, hop or latency: the reader reads none of
    them). A question or method the recording lacks is an error naming the file."""
    mine = recording[recording["method"] == method]
    if mine.empty:
        raise ValueError(f"retrieve.replay: {path} holds no retrieval of method {method!r} "
                         f"(it holds {', '.join(sorted(set(recording['method']))) or 'none'})")
    by_question = rows_by_question(recording, method,
                                   questions["question_id"].astype(str).tolist(), path,
                                   "retrieve.replay", "retrieval")
    parts = []
    for q in questions.itertuples(index=False):
        rows = by_question[str(q.question_id)].sort_values("rank")
        parts.append(pd.DataFrame({
            "source": q.source, "scope": "per_question", "question_id": q.question_id,
            "collection_id": q.collection_id, "method": method, "rank": rows["rank"].to_numpy(),
            "passage_id": rows["passage_id"].replace("", None).to_numpy(), "score": np.nan,
            "hop": -1, "path": rows["path"].where(rows["path"] != "",
                                                  rows["passage_id"]).to_numpy(),
            "latency_ms": np.nan, "calls": rows["calls"].to_numpy()}))
    return pd.concat(parts, ignore_index=True)[RETRIEVED_COLUMNS] if parts else \
        pd.DataFrame(columns=RETRIEVED_COLUMNS)


def _lists(table: pd.DataFrame) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Each (method, question)'s ranked ``(passage id, path)`` pairs (none: an empty list)."""
    table = table.sort_values("rank")
    return {(m, str(q)): list(zip(g.loc[g["rank"] >= 0, "passage_id"],
                                  g.loc[g["rank"] >= 0, "path"]))
            for (m, q), g in table.groupby(["method", "question_id"], sort=False)}


def compare(recording: pd.DataFrame, rerun: dict[str, pd.DataFrame], top: int = 10
            ) -> pd.DataFrame:
    """Per method, how many of the recording's questions a rerun's ``retrieved_<method>``
    tables (``rerun``) retrieve differently: ``changed`` (the ranked list differs anywhere),
    ``changed_top`` (within its first ``top`` rows), of ``questions`` compared (those both
    hold). A count, never a failure: a near-tie may come out the other way on another CPU."""
    rows = []
    for method, table in rerun.items():
        mine = recording[recording["method"] == method]
        if mine.empty or table.empty:
            continue
        again = recorded_rows(table, mine["question_id"])
        before, after = _lists(mine), _lists(again)
        shared = [k for k in before if k in after]
        rows.append({"method": method, "questions": len(shared),
                     "changed": sum(before[k] != after[k] for k in shared),
                     "changed_top": sum(before[k][:top] != after[k][:top] for k in shared)})
    return pd.DataFrame(rows, columns=["method", "questions", "changed", "changed_top"])
