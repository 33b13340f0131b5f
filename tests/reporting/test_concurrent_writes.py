"""Two runs writing the same benchmark's results at once (real processes): every answer row,
every run record and every recorded retrieval of both is kept (one lock a benchmark, and
``answers.csv`` with ``run.json`` written as one unit)."""
from __future__ import annotations

import json
import multiprocessing

import pandas as pd

from kgp_kedro.reporting.results import read_answers, record_answers
from kgp_kedro.retrievers.recorded import read_recorded, record
from tests.reporting.test_results_store import scored  # noqa: F401 - the fixture

ROUNDS = 8   # writes a writer makes, one question each, interleaved with the other's


def _write(directory: str, rows: pd.DataFrame, start) -> None:
    """One run: for each question of ``rows`` (one method's), its answer and a recorded
    retrieval, each a read-modify-write of the whole file."""
    start.wait()
    method = rows["method"].iloc[0]
    for question_id, row in rows.groupby("question_id", sort=False):
        record_answers(row, directory, {"read": {"method": method}}, "local:m", None)
        record(f"{directory}/retrieved.csv.gz", [pd.DataFrame([{
            "method": method, "source": "hotpotqa", "question_id": str(question_id), "rank": 0,
            "passage_id": f"{question_id}-0", "path": "", "calls": 0}])])


def test_two_writers_of_one_benchmark_at_once_lose_nothing(tmp_path, scored):  # noqa: F811
    _, scores = scored
    mine = {m: scores[scores["method"] == m].head(ROUNDS) for m in ("dpr", "kgp")}
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    writers = [context.Process(target=_write, args=(str(tmp_path), rows, start))
               for rows in mine.values()]
    for writer in writers:
        writer.start()
    start.set()
    for writer in writers:
        writer.join(timeout=120)
        assert writer.exitcode == 0
    answers = read_answers(tmp_path)
    expected = pd.concat(mine.values())
    assert sorted(zip(answers["method"], answers["question_id"])) == \
        sorted(zip(expected["method"], expected["question_id"].astype(str)))
    assert answers.set_index(["method", "question_id"])["prediction"].to_dict() == \
        expected.astype({"question_id": str}).set_index(["method", "question_id"])[
            "prediction"].to_dict()
    runs = json.loads((tmp_path / "run.json").read_text())["runs"]
    assert sorted(r["methods"][0] for r in runs) == ["dpr"] * ROUNDS + ["kgp"] * ROUNDS
    assert len(read_recorded(tmp_path / "retrieved.csv.gz")) == 2 * ROUNDS
    assert not list(tmp_path.glob(".*.tmp"))
