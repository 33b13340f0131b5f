"""A method whose LLM calls all fail (issue 13): recorded as failed in the answers and score
tables (every question ``failed``, scored as wrong), the run goes on with the other methods,
and one clear summary line is logged at the end of each node."""
from __future__ import annotations

import logging

import pandas as pd
import pytest

from kgp_kedro.pipelines.read.nodes import answer_questions
from kgp_kedro.pipelines.score.nodes import score_method, summarise_qa
from tests.llm.fake_openai_server import FakeOpenAIServer

READ = {"prompt_styles": {"default": "numbered"}, "margin_tokens": 16}


@pytest.fixture(scope="module")
def qa_inputs(hotpot_passages):
    """Three real HotpotQA questions, their passages, and a retrieval of each question's
    first three passages (what a retrieve node hands the reader)."""
    questions, passages = hotpot_passages
    qa = questions.head(3).reset_index(drop=True)
    rows = []
    for q in qa.itertuples(index=False):
        ids = passages.loc[passages["collection_id"] == q.collection_id, "passage_id"].head(3)
        rows += [{"question_id": q.question_id, "rank": r, "passage_id": p, "path": p,
                  "score": 1.0 / (r + 1), "setting": "default"} for r, p in enumerate(ids)]
    return qa, pd.DataFrame(rows), passages


def _llm(server) -> dict:
    return {"backend": "openai", "cache": None, "sampling": {"max_tokens": 8},
            "openai": {"model": "m", "base_url": server.base_url, "api_key": "k",
                       "max_retries": 0, "timeout": 5, "context_window": 4096,
                       "invalid_reply_backoff": 0.01}}


@pytest.mark.parametrize("fault", [503, "null_content", "empty_choices"])
def test_a_method_whose_calls_all_fail_is_recorded_as_failed(qa_inputs, caplog, fault):
    qa, retrieved, passages = qa_inputs
    with FakeOpenAIServer(failures=[fault] * 50) as server, \
            caplog.at_level(logging.INFO):
        answers = answer_questions(qa, retrieved, passages, _llm(server), READ, {}, "down")
    assert len(answers) == 3 and answers["error"].notna().all()   # no exception: rows
    assert (answers["answer"] == "").all()
    lines = [r for r in caplog.records if r.getMessage().startswith("read down:")]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    assert "FAILED: all 3 LLM calls failed" in lines[0].getMessage()
    assert "count as wrong answers" in lines[0].getMessage()

    caplog.clear()
    with caplog.at_level(logging.INFO):
        scores = score_method(qa, answers, passages, {"judge": False}, {}, "down")
    assert scores["failed"].all() and (scores["em"] == 0).all() and (scores["f1"] == 0).all()
    line = [r for r in caplog.records if r.getMessage().startswith("score down:")]
    assert len(line) == 1 and line[0].levelno == logging.WARNING
    assert "all 3 questions failed" in line[0].getMessage()


def test_the_run_goes_on_with_the_other_methods(qa_inputs, caplog):
    qa, retrieved, passages = qa_inputs
    golds = dict(zip(qa["question"], qa["answer"]))

    def oracle(prompt: str) -> str:  # a reader that knows the gold answers
        return next(f"Answer: {a}" for q, a in golds.items() if q in prompt)

    with FakeOpenAIServer(failures=[500] * 3) as down:
        failed = answer_questions(qa, retrieved, passages, _llm(down), READ, {}, "down")
    with FakeOpenAIServer(reply=oracle) as up:
        answered = answer_questions(qa, retrieved, passages, _llm(up), READ, {}, "up")
    assert answered["error"].isna().all()
    per_method = [score_method(qa, a, passages, {"judge": False}, {}, m)
                  for a, m in ((failed, "down"), (answered, "up"))]
    with caplog.at_level(logging.WARNING):
        scores, summary, by_type = summarise_qa(*per_method)
    summary = summary.set_index("method")
    assert summary.loc["down", "questions"] == summary.loc["up", "questions"] == 3
    assert summary.loc["down", "failed"] == 3 and summary.loc["down", "em"] == 0.0
    assert summary.loc["up", "failed"] == 0 and summary.loc["up", "em"] == 1.0
    assert set(by_type["method"]) == {"down", "up"}
    assert any("1 methods failed entirely" in r.getMessage() and "down" in r.getMessage()
               for r in caplog.records)


def test_some_failed_calls_give_a_partial_summary(qa_inputs, caplog):
    qa, retrieved, passages = qa_inputs
    with FakeOpenAIServer(failures=[500]) as server, caplog.at_level(logging.INFO):
        answers = answer_questions(qa, retrieved, passages, _llm(server), READ, {}, "flaky")
    assert answers["error"].notna().sum() == 1
    line = [r.getMessage() for r in caplog.records if r.getMessage().startswith("read flaky:")]
    assert line == [line[0]] and "2 of 3 questions answered" in line[0] and "1 failed" in line[0]


def test_summarise_qa_with_every_method_skipped_gives_empty_tables():
    empty = score_method(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), {}, {}, "skipped")
    scores, summary, by_type = summarise_qa(empty, empty)
    assert scores.empty and summary.empty and by_type.empty
