"""The committed results of a benchmark: answers recorded per question and method (a re-run
replaces its own rows, keeps the others, and logs itself in run.json), paired differences
computed as defined, tables generated from answers.csv alone, and the committed tables equal
to what the committed answers regenerate (no model involved)."""
import json

import numpy as np
import pandas as pd
import pytest

from kgp_kedro.evaluation.qa_scores import SCORE_COLUMNS, score_answers
from kgp_kedro.llm.store import ReplyStore
from kgp_kedro.reporting.results import (paired_differences, read_answers, record_answers,
                                         regenerate, render_tables)
from tests.conftest import ROOT


def answers_of(questions: pd.DataFrame, predict, ran_as: str = "") -> pd.DataFrame:
    """A reader's answer rows (the read stage's columns) with ``predict(question row)``."""
    return pd.DataFrame([{"question_id": q.question_id, "answer": predict(q), "error": None,
                          "context_ids": [], "n_contexts": 0, "prompt_tokens": 100,
                          "completion_tokens": 3, "latency_ms": 1500.0, "llm_calls": 1,
                          "ran_as": ran_as} for q in questions.itertuples(index=False)])


@pytest.fixture(scope="module")
def scored(hotpot_passages):
    """Real HotpotQA questions scored by the real scorer: ``golden`` answers with the gold
    answer, ``dpr`` with its first word, ``kgp`` with nothing useful."""
    questions, passages = hotpot_passages
    predictions = {"golden": lambda q: q.answer, "dpr": lambda q: q.answer.split()[0],
                   "kgp": lambda q: "unknown"}
    ran_as = {"golden": "golden", "dpr": "dpr", "kgp": "kgp agent.kind=tfidf"}
    return questions, pd.concat([score_answers(questions, answers_of(questions, f, ran_as[m]),
                                               passages, m)
                                 for m, f in predictions.items()], ignore_index=True)


def test_a_rerun_replaces_its_own_rows_keeps_the_others_and_logs_itself(tmp_path, scored):
    _, scores = scored
    params = {"retrieve": {"budget": 30}, "llm": {"backend": "local"}, "unrelated": 1}
    record_answers(scores[scores["method"] != "kgp"], tmp_path, params, "local:m", "abc")
    again = scores[scores["method"] == "dpr"].assign(prediction="changed")
    table = record_answers(pd.concat([again, scores[scores["method"] == "kgp"]]), tmp_path,
                           params, "local:m", "def")
    on_disk = read_answers(tmp_path)
    assert list(on_disk.columns) == SCORE_COLUMNS and len(on_disk) == len(scores) == len(table)
    assert set(on_disk[on_disk["method"] == "dpr"]["prediction"]) == {"changed"}
    assert (on_disk[on_disk["method"] == "golden"]["em"] == 1.0).all()
    assert on_disk[["source", "question_id", "method"]].duplicated().sum() == 0
    runs = json.loads((tmp_path / "run.json").read_text())
    assert [r["git_commit"] for r in runs["runs"]] == ["abc", "def"]
    assert [r["rows"] for r in runs["runs"]] == [16, 16]
    (sha,) = runs["parameters"]
    assert runs["parameters"][sha] == {"retrieve": {"budget": 30}, "llm": {"backend": "local"}}
    assert not list(tmp_path.glob(".*.tmp"))


def test_paired_differences_are_the_mean_per_question_difference():
    scores = pd.DataFrame({"source": "s", "question_id": ["1", "2", "3"] * 2,
                           "method": ["a"] * 3 + ["dpr"] * 3,
                           "f1": [1.0, 0.0, 0.5, 0.5, 0.0, 0.5]})
    (row,) = paired_differences(scores, "dpr").itertuples(index=False)
    assert row.method == "a" and row.questions == 3
    assert row.diff == pytest.approx(0.5 / 3)              # (0.5 + 0 + 0) / 3
    assert 0.0 <= row.low <= row.diff <= row.high <= 0.5   # every resample lies in [0, 0.5]
    assert paired_differences(scores, "golden").empty


def test_tables_come_from_the_answers_alone_and_a_hand_edit_is_found(tmp_path, scored):
    _, scores = scored
    directory = tmp_path / "bench"
    record_answers(scores, directory, {}, "local:m", None)
    assert regenerate(tmp_path) == [directory / "tables.md"]
    text = (directory / "tables.md").read_text()
    assert text == render_tables(read_answers(directory), "Answers: bench")
    assert "| golden | golden | 8 | 100.0 | 100.0 [100.0, 100.0] |" in text
    assert "| dpr | dpr | 8 |" in text and "Δ F1 vs dpr" in text
    kgp_vs_golden = text.split("| kgp | kgp agent.kind=tfidf | 8 |")[1].splitlines()[0]
    assert kgp_vs_golden.rstrip().endswith("-100.0 [-100.0, -100.0] |")
    assert regenerate(tmp_path, check=True) == []
    (directory / "tables.md").write_text(text.replace("100.0", "99.0", 1))
    assert regenerate(tmp_path, check=True) == [directory / "tables.md"]


def test_table2_the_costs_and_the_citations_come_from_their_rows(tmp_path, scored):
    """Table 2 holds the rows the ``kgp`` retriever ran; the cost table each method's F1
    beside its reader tokens and LLM calls; the citation table only methods that cite."""
    questions, scores = scored
    cites = scores[scores["method"] == "golden"].assign(
        method="ewek_web", llm_calls=3, prompt_tokens=40, ran_as="quotes=bm25 order",
        cited=[1.0, 0.0] * 4, citation_accuracy=[0.5, np.nan] * 4)
    record_answers(pd.concat([scores, cites]), tmp_path / "bench", {}, "local:m", None)
    text = render_tables(read_answers(tmp_path / "bench"), "t")
    agents = text.split("## Table 2")[1].split("##")[0]
    assert "| hotpotqa | kgp | kgp agent.kind=tfidf | 8 |" in agents and "| dpr |" not in agents
    costs = text.split("## F1 against")[1].split("##")[0]
    assert "| hotpotqa | golden | 100.0 | 100 | 3.0 | 1.0 | 1.50 | 0 |" in costs
    assert "| hotpotqa | ewek_web | 100.0 | 40 | 3.0 | 3.0 | 1.50 | 0 |" in costs
    citations = text.split("## Citations")[1]
    assert "| hotpotqa | ewek_web | 8 | 50.0 | 50.0 | 3.0 |" in citations
    assert "| golden |" not in citations


def test_the_committed_results_regenerate_exactly_and_every_reply_reads():
    """What results/ holds now (nothing at first; every benchmark piece committed later):
    each committed table equals what its answers regenerate, and every stored reply parses."""
    root = ROOT / "results"
    assert regenerate(root, check=True) == []
    store = ReplyStore(root / "llm")
    keys = list(store.keys())
    assert len(keys) == len(set(keys))
    assert all(np.isfinite(store.get(k)["prompt_tokens"]) for k in keys)


def test_the_report_node_records_under_the_configured_benchmark(tmp_path, scored):
    from kgp_kedro.pipelines.report.nodes import record_results
    from kgp_kedro.reporting.results import ANSWER_BLOCKS

    _, scores = scored
    blocks = {b: {} for b in ANSWER_BLOCKS}
    blocks["llm"] = {"backend": "local", "local": {"model": "qwen-test"}}
    record_results(scores, {"results": {"root": str(tmp_path), "benchmark": "bench"}},
                   *blocks.values())
    runs = json.loads((tmp_path / "bench" / "run.json").read_text())["runs"]
    assert runs[0]["reader"] == "local:qwen-test" and runs[0]["rows"] == len(scores)
    assert len(read_answers(tmp_path / "bench")) == len(scores)


def test_methods_read_on_fewer_questions_are_compared_on_the_shared_ones(tmp_path, scored):
    """A method read on 5 of a source's 8 questions: Table 1 keeps every row's own count,
    and a second table puts every method of that source on those 5 questions."""
    questions, scores = scored
    first5 = set(questions["question_id"].iloc[:5])
    fewer = scores[(scores["method"] != "kgp") | scores["question_id"].isin(first5)]
    text = render_tables(fewer, "t")
    assert "| dpr | dpr | 8 |" in text and "| kgp | kgp agent.kind=tfidf | 5 |" in text
    shared = text.split("## On the questions every method")[1].split("##")[0]
    assert "| hotpotqa | golden | 5 | 100.0 | 100.0 [100.0, 100.0] |" in shared
    assert "| hotpotqa | dpr | 5 |" in shared
    kgp = shared.split("| hotpotqa | kgp | 5 |")[1].splitlines()[0]
    assert kgp.rstrip().endswith("-100.0 [-100.0, -100.0] |")   # vs golden, on the 5
    assert "On the questions every method" not in render_tables(scores, "t")
