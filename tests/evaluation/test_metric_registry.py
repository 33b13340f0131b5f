"""The answer / citation metric registry: it lays out the score table exactly as every
committed ``answers.csv`` (whose replay compares and appends to it), and a metric added as one
registered class appears in the score stage's tables, the report's Table 1 and the generated
``tables.md`` with no other edit: a toy metric, registered by the test and unregistered after,
scored by the real score nodes on real HotpotQA questions with the predictions committed in
``results/qa_benchmark``."""
import pandas as pd
import pytest

from kgp_kedro.evaluation.metrics import METRICS, Column, Metric
from kgp_kedro.evaluation.qa_scores import score_columns, summary_columns
from kgp_kedro.pipelines.score.nodes import score_method, summarise_qa
from kgp_kedro.reading import READ_COLUMNS
from kgp_kedro.reporting.qa_tables import comparison_table
from kgp_kedro.reporting.results import read_answers, record_answers, regenerate, render_tables
from tests.conftest import ROOT

RESULTS = ROOT / "results"
TOY = "toy_one_word"


@pytest.fixture
def toy_metric():
    """A toy metric (this test's, not the project's): 1 when the prediction is one word.
    Registered for the test, unregistered after, whatever the test did."""
    METRICS.names()                      # the package's own metrics first

    @METRICS.register(TOY)
    class ToyOneWord(Metric):
        columns = (Column(TOY, "one word (toy)"),)

        def score(self, record):
            return (float(len(record.prediction.split()) == 1),)

    try:
        yield ToyOneWord
    finally:
        METRICS.unregister(TOY)
    assert TOY not in score_columns()                        # nothing left for other tests


def test_the_registry_lays_out_every_committed_answers_header():
    headers = {path.parent.name: path.read_text(encoding="utf-8").splitlines()[0].split(",")
               for path in sorted(RESULTS.glob("*/answers.csv"))}
    assert headers                                           # the benchmarks are committed
    for name, header in headers.items():
        assert score_columns() == header, name


def test_a_metric_placed_after_no_column_is_named():
    @METRICS.register("toy_misplaced")
    class ToyMisplaced(Metric):
        columns = (Column("toy_x", "x (toy)"),)
        after = "no_such_column"

        def score(self, record):
            return (0.0,)

    try:
        with pytest.raises(ValueError, match=r"toy_misplaced \(after='no_such_column'\)"):
            score_columns()
    finally:
        METRICS.unregister("toy_misplaced")
    assert "toy_x" not in score_columns()


def _committed_answers(questions: pd.DataFrame,
                       method: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``method``'s committed rows of results/qa_benchmark for ``questions`` as the read
    stage's answer rows (the passages the reader saw are not committed: none), and the
    committed rows by question."""
    committed = read_answers(RESULTS / "qa_benchmark").astype({"question_id": str})
    rows = committed[(committed["method"] == method) & (committed["source"] == "hotpotqa")
                     & committed["question_id"].isin(questions["question_id"])]
    answers = pd.DataFrame({
        "source": rows["source"], "question_id": rows["question_id"], "method": method,
        "answer": rows["prediction"], "raw_response": rows["prediction"],
        "context_ids": [[] for _ in range(len(rows))], "n_contexts": rows["n_contexts"],
        "n_cut": 0, "cut_ids": [[] for _ in range(len(rows))],
        "prompt_tokens": rows["prompt_tokens"], "completion_tokens": rows["completion_tokens"],
        "latency_ms": rows["reader_latency_ms"], "cached": True, "error": None,
        "llm_calls": rows["llm_calls"], "ran_as": rows["ran_as"]}, columns=READ_COLUMNS)
    return answers, rows.set_index("question_id")


def _markdown_cell(text: str, section: str, header: str, first_cell: str) -> str:
    """The ``header`` cell of the row opening with ``first_cell`` in ``section``'s table."""
    lines = text.split(f"#### {section}\n\n")[1].split("\n\n")[0].splitlines()
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == first_cell:
            return cells[head.index(header)]
    raise AssertionError(f"no row {first_cell!r} in {section}")


def test_a_metric_added_as_one_class_reaches_every_table(toy_metric, hotpot_passages,
                                                         tmp_path):
    questions, passages = hotpot_passages               # the first 8 bundled HotpotQA questions
    per_method = {}
    for method in ("dpr", "golden"):
        answers, committed = _committed_answers(questions, method)
        assert len(answers) == 8
        scores = score_method(questions, answers, passages, {}, {}, name=method)
        per_method[method] = scores
        # the registry's scorer gives the committed EM, F1 and Hits@1 on the committed replies
        mine = scores.set_index("question_id").loc[committed.index]
        for metric in ("em", "f1", "hits1"):
            assert mine[metric].tolist() == pytest.approx(committed[metric].tolist()), metric

    # the toy's column: after every column of today, computed per row as defined
    scores, summary, by_type = summarise_qa(per_method["dpr"], per_method["golden"])
    assert list(scores.columns) == score_columns() and scores.columns[-1] == TOY
    one_word = {m: dict(zip(s["question_id"], s["prediction"])) for m, s in per_method.items()}
    # by hand, on the committed replies: dpr answered "Popovich" (Bob Hill) and "1907"
    # (8 April 1912) in one word, golden only "1912"; every other reply is a phrase
    by_hand = {"dpr": {"5a74397055429974ef308bbe", "5ac471a5554299194317399a"},
               "golden": {"5ac471a5554299194317399a"}}
    for method, ids in by_hand.items():
        assert {q for q, p in one_word[method].items() if len(p.split()) == 1} == ids
        rows = scores[scores["method"] == method]
        assert rows[TOY].tolist() == [float(q in ids) for q in rows["question_id"]]

    # the summary tables: its mean, beside today's columns
    assert TOY in summary_columns() and summary.columns[-1] == TOY
    means = summary.set_index("method")[TOY]
    assert means["dpr"] == 2 / 8 and means["golden"] == 1 / 8
    assert by_type[TOY].notna().all()
    table1 = comparison_table(summary).set_index("method")
    assert table1.loc["dpr", f"hotpotqa/{TOY}"] == 25.0
    assert table1.loc["golden", f"hotpotqa/{TOY}"] == 12.5

    # the generated tables.md, from the recorded answers.csv
    directory = tmp_path / "bench"
    record_answers(scores, directory, {}, "local:m", None)
    assert (directory / "answers.csv").read_text().splitlines()[0].endswith(f",{TOY}")
    assert regenerate(tmp_path, pages=()) == [directory / "tables.md"]
    text = (directory / "tables.md").read_text()
    assert "| Hits@1 | one word (toy) | F1 / Golden F1 |" in text
    assert _markdown_cell(text, "hotpotqa", "one word (toy)", "dpr") == "25.0"
    assert _markdown_cell(text, "hotpotqa", "one word (toy)", "golden") == "12.5"


def test_a_committed_benchmark_without_a_new_metric_keeps_its_tables(toy_metric):
    """A metric registered after a benchmark was recorded: the committed answers.csv still
    reads (its column empty) and its tables.md is generated as committed."""
    directory = RESULTS / "qa_benchmark_small_reader"
    answers = read_answers(directory)
    assert answers[TOY].isna().all() and list(answers.columns) == score_columns()
    assert render_tables(answers, f"Answers: {directory.name}") == \
        (directory / "tables.md").read_text(encoding="utf-8")
