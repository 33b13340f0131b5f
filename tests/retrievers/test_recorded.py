"""The recorded retrievals of a benchmark (results/<benchmark>/retrieved.csv.gz): real BM25
rankings recorded, read back and replayed give the reader the same prompts; a recording is
the same bytes for the same rows; a rerun's changed lists are counted, not failed; a question
the recording lacks stops the replay naming the file."""
import pandas as pd
import pytest

from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.reading.reader import passage_texts, ranked_contexts
from kgp_kedro.retrievers.recorded import (RECORDED_COLUMNS, compare, read_recorded, record,
                                           recorded_rows, replayed)
from kgp_kedro.retrievers.run import RETRIEVED_COLUMNS, retrieve_all


@pytest.fixture(scope="module")
def bm25(hotpot_passages):
    questions, passages = hotpot_passages
    return retrieve_all(questions, passages, parse_method("bm25", {"method": "bm25"}, "m"), 30)


def test_a_replayed_retrieval_builds_the_recorded_prompts(tmp_path, hotpot_passages, bm25):
    questions, passages = hotpot_passages
    path = tmp_path / "retrieved.csv.gz"
    asked = questions.head(5)
    table = record(path, [recorded_rows(bm25, asked["question_id"])])
    assert list(table.columns) == RECORDED_COLUMNS and len(table) == 5 * 30
    first = path.read_bytes()
    record(path, [recorded_rows(bm25, asked["question_id"].head(2))])   # replaces its own rows
    assert path.read_bytes() == first
    again = replayed(asked, read_recorded(path), "bm25", path)
    assert list(again.columns) == RETRIEVED_COLUMNS
    texts = passage_texts(passages)
    for q in asked.itertuples(index=False):
        ours = bm25[bm25["question_id"] == q.question_id]
        theirs = again[again["question_id"] == q.question_id]
        for style in ("numbered", "paths"):
            assert ranked_contexts(theirs, texts, style) == ranked_contexts(ours, texts, style)
        assert theirs["calls"].tolist() == ours["calls"].tolist()


def test_a_path_of_several_passages_and_a_question_without_passages_replay(tmp_path):
    retrieved = pd.DataFrame({
        "source": "s", "scope": "per_question", "question_id": ["1", "1", "2"],
        "collection_id": "c", "method": "m", "rank": [0, 1, -1],
        "passage_id": ["a", "b", None], "score": [2.0, 1.0, None], "hop": [0, 1, -1],
        "path": ["a", "a > b", ""], "latency_ms": 1.0, "calls": [3, 3, 0]})[RETRIEVED_COLUMNS]
    path = tmp_path / "r.csv.gz"
    record(path, [recorded_rows(retrieved, ["1", "2"])])
    questions = pd.DataFrame({"source": "s", "question_id": ["1", "2"], "collection_id": "c"})
    again = replayed(questions, read_recorded(path), "m", path)
    assert again["path"].tolist() == ["a", "a > b", ""]
    assert again["passage_id"].tolist()[:2] == ["a", "b"] and again["passage_id"].isna().iloc[2]
    assert again["calls"].tolist() == [3, 3, 0]
    texts = {"a": "A.", "b": "B."}
    assert ranked_contexts(again[again["question_id"] == "1"], texts, "paths") == [
        (("a",), "A."), (("a", "b"), "A.\nB.")]
    assert ranked_contexts(again[again["question_id"] == "2"], texts, "numbered") == []


def test_a_question_or_method_the_recording_lacks_stops_the_replay(tmp_path, hotpot_passages,
                                                                   bm25):
    questions, _ = hotpot_passages
    path = tmp_path / "retrieved.csv.gz"
    record(path, [recorded_rows(bm25, questions["question_id"].head(3))])
    with pytest.raises(ValueError, match=f"{path}.*lacks method 'bm25'.*5 of 8 questions"):
        replayed(questions, read_recorded(path), "bm25", path)
    with pytest.raises(ValueError, match="no retrieval of method 'dpr'"):
        replayed(questions.head(3), read_recorded(path), "dpr", path)


def test_a_rerun_that_swaps_a_near_tie_is_counted(tmp_path, hotpot_passages, bm25):
    questions, _ = hotpot_passages
    path = tmp_path / "retrieved.csv.gz"
    recording = record(path, [recorded_rows(bm25, questions["question_id"])])
    assert compare(recording, {"bm25": bm25}).to_dict("records") == [
        {"method": "bm25", "questions": 8, "changed": 0, "changed_top": 0}]
    rerun = bm25.copy()
    first = rerun["question_id"] == questions["question_id"].iloc[0]
    tail = first & (rerun["rank"] >= 28)                 # ranks 28 and 29 swapped
    rerun.loc[tail, "rank"] = 57 - rerun.loc[tail, "rank"]
    second = rerun["question_id"] == questions["question_id"].iloc[1]
    head = second & (rerun["rank"] <= 1)                 # ranks 0 and 1 swapped
    rerun.loc[head, "rank"] = 1 - rerun.loc[head, "rank"]
    assert compare(recording, {"bm25": rerun}).to_dict("records") == [
        {"method": "bm25", "questions": 8, "changed": 2, "changed_top": 1}]


def _saved(path, table: pd.DataFrame) -> None:
    """``table`` saved as the catalog's versioned table datasets save it."""
    from kedro.io.core import Version

    from kgp_kedro.io.table import TableDataset

    TableDataset(filepath=str(path), version=Version(None, None)).save(table)


def _sorted(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.sort_values(["method", "source", "question_id", "rank"]).reset_index(drop=True)


def test_a_backfill_records_the_retrievals_of_the_committed_answers(tmp_path, hotpot_passages,
                                                                    bm25):
    from kgp_kedro.evaluation.qa_scores import SCORE_COLUMNS
    from kgp_kedro.reporting.recordings import backfill

    questions, _ = hotpot_passages
    output = tmp_path / "07_model_output"
    _saved(output / "retrieved_bm25.parquet", bm25)
    answered = pd.DataFrame([{"source": "hotpotqa", "question_id": q, "method": m}
                             for q in questions["question_id"].head(3)
                             for m in ("bm25", "holmes")]).reindex(columns=SCORE_COLUMNS)
    (tmp_path / "bench").mkdir()
    answered.to_csv(tmp_path / "bench" / "answers.csv", index=False)
    path = tmp_path / "bench" / "retrieved.csv.gz"
    table = backfill(path, output)        # HOLMES is not a retrieval method: nothing for it
    assert set(table["method"]) == {"bm25"}
    assert sorted(set(table["question_id"])) == sorted(questions["question_id"].head(3))
    assert table.equals(read_recorded(path))
    assert table.equals(_sorted(recorded_rows(bm25, questions["question_id"].head(3))))


def test_a_piece_recorded_ahead_holds_every_question_it_will_read(tmp_path, hotpot_passages,
                                                                  bm25):
    from kgp_kedro.reporting.recordings import ahead

    questions, _ = hotpot_passages
    output = tmp_path / "07_model_output"
    _saved(output / "retrieved_bm25.parquet", bm25)
    asked = tmp_path / "qa_questions.parquet"
    _saved(asked, questions.head(4))
    path = tmp_path / "bench" / "retrieved.csv.gz"
    table = ahead(path, output, asked, ["bm25"])
    assert table.equals(_sorted(recorded_rows(bm25, questions["question_id"].head(4))))
    before = path.read_bytes()
    with pytest.raises(ValueError, match="no retrieved_<method>.parquet .* for dpr"):
        ahead(path, output, asked, ["bm25", "dpr"])
    _saved(asked, questions.head(4).assign(question_id=["absent",
                                                        *questions["question_id"][1:4]]))
    with pytest.raises(ValueError, match="retrieved_bm25.parquet lacks 1 of 4 .*first: absent"):
        ahead(path, output, asked, ["bm25"])
    assert path.read_bytes() == before          # nothing written by a refused recording
