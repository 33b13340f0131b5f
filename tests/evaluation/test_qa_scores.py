"""Per-question QA scores on one denominator, with the LLM judge served by a real
OpenAI-compatible server on 127.0.0.1."""
import pandas as pd
import pytest

from kgp_kedro.config.sections import ScoreParams
from kgp_kedro.evaluation.qa_scores import score_answers, summarise_scores
from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from kgp_kedro.reading import READ_COLUMNS
from tests.llm.fake_openai_server import FakeOpenAIServer


@pytest.fixture(scope="module")
def three_questions(hotpot_passages):
    questions, passages = hotpot_passages
    return questions.head(3).reset_index(drop=True), passages


def _answers(questions, predictions, errors=(None, None, None)):
    rows = []
    for q, prediction, error in zip(questions.itertuples(), predictions, errors):
        if prediction is None:
            continue  # no answer row at all
        rows.append({"source": q.source, "question_id": q.question_id, "method": "m",
                     "answer": prediction, "raw_response": prediction, "context_ids": [],
                     "n_contexts": 0, "n_cut": 0, "cut_ids": [], "prompt_tokens": 10,
                     "completion_tokens": 2, "latency_ms": 5.0, "cached": False, "error": error})
    return pd.DataFrame(rows, columns=READ_COLUMNS)


def test_failed_and_missing_answers_count_as_wrong(three_questions):
    questions, passages = three_questions
    gold = questions["answer"].tolist()
    answers = _answers(questions, [gold[0], "", None], [None, "APITimeoutError: timed out", None])
    scores = score_answers(questions, answers, passages, "m")
    assert len(scores) == 3                                  # every question asked counts
    assert scores["em"].tolist() == [1.0, 0.0, 0.0]
    assert scores["failed"].tolist() == [False, True, True]  # the error and the missing row
    summary = summarise_scores(scores).iloc[0]
    assert summary["questions"] == 3 and summary["failed"] == 2
    assert summary["em"] == pytest.approx(1 / 3)


def test_without_the_judge_acc_is_empty_and_hits1_is_the_containment(three_questions):
    questions, passages = three_questions
    gold = questions["answer"].tolist()
    # exact; the gold answer inside a sentence; a wrong answer
    answers = _answers(questions, [gold[0], f"I think it is {gold[1]}.", "something else"])
    scores = score_answers(questions, answers, passages, "m")
    assert "judge_acc" not in scores.columns
    assert scores["acc"].isna().all()                      # no judge: the paper's Acc unmeasured
    assert scores["hits1"].tolist() == [1.0, 1.0, 0.0]     # EWEK-QA's Hits@1: contained
    assert scores["em"].tolist() == [1.0, 0.0, 0.0]
    summary = summarise_scores(scores).iloc[0]
    assert pd.isna(summary["acc"]) and summary["hits1"] == pytest.approx(2 / 3)
    assert summary["questions"] == 3                       # the questions each mean rests on


def test_the_llm_judge_grades_with_listing_5(three_questions):
    questions, passages = three_questions
    gold = questions["answer"].tolist()
    answers = _answers(questions, [gold[0], f"I think it is {gold[1]}.", ""])
    # a grader that says 1 exactly when the prediction equals the answer in its prompt
    def grade(prompt):
        tail = prompt.split("You are grading the following question:")[1]
        answer = tail.split("Answer: ")[1].split("\n")[0]
        prediction = tail.split("Prediction: ")[1].split("\n")[0]
        return "1" if prediction == answer else "0"
    with FakeOpenAIServer(reply=grade) as server:
        judge = LLMClient(OpenAIBackend("judge", base_url=server.base_url, api_key="k"), None)
        scores = score_answers(questions, answers, passages, "m", judge=judge,
                               judge_max_tokens=ScoreParams().judge_max_tokens)
    # acc is the judge's verdict, hits1 the containment: the second answer contains the gold
    # answer (hits1 1) but this judge grades it wrong (acc 0)
    assert scores["acc"].tolist() == [1.0, 0.0, 0.0]
    assert scores["hits1"].tolist() == [1.0, 1.0, 0.0]
    assert "judge_acc" not in scores.columns
    assert len(server.requests) == 3 and server.requests[0]["max_tokens"] == 4  # score.judge_max_tokens
    summary = summarise_scores(scores).iloc[0]
    assert summary["acc"] == pytest.approx(1 / 3) and summary["hits1"] == pytest.approx(2 / 3)
