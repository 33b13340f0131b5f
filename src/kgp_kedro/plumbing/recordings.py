"""A benchmark's recordings (gzipped CSV tables committed beside its answers): rows replaced
by key, written whole and atomically with no timestamp, so the same rows give the same bytes,
under the benchmark's one lock (:func:`kgp_kedro.plumbing.locks.benchmark_locked`), so two
runs that record into it at once lose neither's rows."""
from __future__ import annotations

import gzip
import io
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from kgp_kedro.plumbing.atomic import write_atomic
from kgp_kedro.plumbing.locks import benchmark_locked

# each recording's file in results/<benchmark>/ (its module: retrievers/ewek/holmes.recorded),
# named here once so the replay, which sits beside those modules' layer, reads the same names
RETRIEVED_FILE = "retrieved.csv.gz"
COMPOSED_FILE = "composed.csv.gz"
READ_FACTS_FILE = "read_facts.csv.gz"


def replace_rows(old: pd.DataFrame, new: pd.DataFrame, key: Sequence[str],
                 order: Sequence[str]) -> pd.DataFrame:
    """``old`` without the keys ``new`` holds, then ``new``, sorted by ``order`` (stable)."""
    key = list(key)
    kept = old[~old.set_index(key).index.isin(new.set_index(key).index)] if len(new) else old
    table = pd.concat([t for t in (kept, new) if len(t)] or [new], ignore_index=True)
    return table.sort_values(list(order), kind="stable").reset_index(drop=True)


def update_recording(path: str | Path, new: pd.DataFrame, key: Sequence[str],
                     order: Sequence[str], read: Callable[[Path], pd.DataFrame]
                     ) -> pd.DataFrame:
    """The recording at ``path`` (as ``read`` gives it) with ``new``'s keys replaced
    (:func:`replace_rows`), written back, read and written under the benchmark's lock (the
    folder holding ``path``). Returns the whole recording."""
    path = Path(path)
    with benchmark_locked(path.parent):
        table = replace_rows(read(path), new, key, order)
        write_csv_gz(path, table)
    return table


def write_csv_gz(path: str | Path, table: pd.DataFrame) -> None:
    """``table`` as a gzipped CSV at ``path`` (no index, ``\\n`` line ends, gzip mtime 0),
    written atomically."""
    text = table.to_csv(index=False, lineterminator="\n").encode("utf-8")
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as handle:
        handle.write(text)
    write_atomic(path, buffer.getvalue())


def read_recording(path: str | Path, columns: Sequence[str], integers: Sequence[str],
                   what: str) -> pd.DataFrame:
    """The recording at ``path`` in ``columns`` (every cell text, ``integers`` as ints; empty
    when the file does not exist); a file that lacks a column is an error naming it and
    ``what`` it should record."""
    path = Path(path)
    if not path.exists():
        return pd.DataFrame(columns=list(columns))
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{path}: not a recording of {what}, columns missing: "
                         f"{', '.join(missing)}")
    return table[list(columns)].astype(dict.fromkeys(integers, int))


def rows_by_question(recording: pd.DataFrame, method: str, question_ids: Sequence[str],
                     path: str | Path, setting: str, what: str) -> dict[str, pd.DataFrame]:
    """``method``'s rows of a recording, per question id; a question of ``question_ids`` it
    lacks is an error naming ``setting``, the file and ``what`` was recorded."""
    mine = recording[recording["method"] == method]
    by_question = dict(tuple(mine.groupby("question_id", sort=False)))
    absent = [q for q in question_ids if q not in by_question]
    if absent:
        raise ValueError(f"{setting}: {path} lacks method {method!r}'s {what} for "
                         f"{len(absent)} of {len(question_ids)} questions (first: {absent[0]}); "
                         f"replay the questions it was recorded for")
    return by_question
