"""Scores of cited answers against a folder's gold (:mod:`kgp_kedro.evaluation.ask_scores`),
on answers of the shape ``kedro run --env ask`` writes; every figure computed by hand."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from kgp_kedro.evaluation.ask_scores import Gold, holds_answer, repeats, score, summary
from kgp_kedro.prompts.ask import ANALYST_INSTRUCTION, NOT_ANSWERED

OLD_INSTRUCTION = ("You answer questions about the user's documents from numbered quotes of "
                   "them. Write one or two sentences of your own (do not list the quotes) and "
                   "cite the quote each fact comes from as [n], e.g. The plant opened in 1998 "
                   "[2]. If the quotes do not answer the question, say so.")
GOLD = {
    "port": Gold("prose", ["5432"], frozenset({"pg.pdf"}), frozenset({("pg.pdf", 3)})),
    "size": Gold("table", ["8 bytes"], frozenset({"pg.pdf"}), frozenset({("pg.pdf", 9)})),
    "fee": Gold("none", []),
    "both": Gold("two_places", ["30 days"], frozenset({"gpl.txt", "mpl.txt"})),
}


def _row(qid: str, answer: str, mark: str, cited: list[tuple[str, int | None]],
         raw: str | None = None, seconds: float = 1.0) -> dict:
    return {"question_id": qid, "answer": answer, "raw_response": raw or answer, "mark": mark,
            "citations": json.dumps([{"file": f, "page": p} for f, p in cited]),
            "claims": json.dumps([{"verdict": "supported"}, {"verdict": "unsupported"}]
                                 if mark == "partly supported" else []),
            "retrieval_ms": 200.0, "latency_ms": seconds * 1000 - 200.0}


def test_each_answer_is_scored_against_its_gold_and_summed_up():
    answers = pd.DataFrame([
        _row("port", "PostgreSQL listens on port 5432 [1].", "supported", [("pg.pdf", 3)]),
        # right value, the right file cited on another page; a claim removed
        _row("size", "A bigint takes 8 bytes [2].", "partly supported", [("pg.pdf", 8)],
             raw="A bigint takes 8 bytes [2]. It is fast [3].", seconds=3.0),
        # the unanswerable one not found, though the reply named a fee
        _row("fee", NOT_ANSWERED, "not found", [], raw="The fee is $10 [1]."),
        # the reply was right, the check made it not found
        _row("both", NOT_ANSWERED, "not found", [], raw="You have 30 days [1][2].",
             seconds=2.0)])
    scored = score(answers, GOLD, ANALYST_INSTRUCTION, NOT_ANSWERED)
    assert scored["correct"].tolist() == [1.0, 1.0, 0.0, 0.0]
    assert scored["raw_correct"].tolist() == [1.0, 1.0, 0.0, 1.0]
    assert scored["file_cited"].tolist() == [True, True, False, False]
    assert scored["page_cited"].tolist() == [True, False, False, False]
    assert scored["abstained"].tolist() == [False, False, True, True]
    assert scored["removed"].tolist() == [0, 1, 0, 0]
    s = summary(scored)
    assert (s["answerable"], s["none"]) == (3, 1)
    assert s["correct"] == pytest.approx(2 / 3) and s["raw_correct"] == 1.0
    assert s["wrongly_not_found"] == pytest.approx(1 / 3)
    assert s["not_found_recall"] == 1.0 and s["not_found_precision"] == 0.5
    assert s["seconds"] == pytest.approx(7 / 4)
    assert (s["correct_prose"], s["correct_table"], s["correct_two_places"]) == (1.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="no gold for questions other"):
        score(answers.assign(question_id=["port", "size", "fee", "other"]), GOLD,
              ANALYST_INSTRUCTION)


def test_a_reply_repeating_the_instructions_example_is_counted():
    # issue 64: the reply to a question whose quote [2] held the answer
    echo = "The plant opened in 1998 [1]."
    assert repeats(echo, OLD_INSTRUCTION)
    assert not repeats("PostgreSQL listens on port 5432 [1].", OLD_INSTRUCTION)
    # the instruction's own reply for a question not answered is no echo when allowed
    assert repeats(NOT_ANSWERED, ANALYST_INSTRUCTION)
    assert not repeats(NOT_ANSWERED, ANALYST_INSTRUCTION, NOT_ANSWERED)
    assert repeats(f"After each fact put the number of the quote it comes from. "
                   f"{NOT_ANSWERED}", ANALYST_INSTRUCTION, NOT_ANSWERED)


def test_a_citations_number_is_no_answer():
    # holdout2's neato questions accept ".1", which the SQuAD normalisation reads as "1": the
    # 1.5B reader's wrong replies citing quote [1] were scored right before citations were
    # taken out of the text scored
    gold = {"sep": Gold("table", [".1", "0.1"], frozenset({"neatoguide.pdf"}))}
    wrong = "The NEATO guide suggests trying a value of 0 for the sep attribute [1]."
    right = "The guide suggests trying .1 for sep [1]."
    scored = score(pd.DataFrame([_row("sep", wrong, "supported", [("neatoguide.pdf", 10)])]),
                   gold, ANALYST_INSTRUCTION, NOT_ANSWERED)
    assert (scored["correct"].item(), scored["raw_correct"].item()) == (0.0, 0.0)
    scored = score(pd.DataFrame([_row("sep", right, "supported", [("neatoguide.pdf", 10)])]),
                   gold, ANALYST_INSTRUCTION, NOT_ANSWERED)
    assert (scored["correct"].item(), scored["raw_correct"].item()) == (1.0, 1.0)


def test_an_answer_written_inside_a_url_or_a_path_is_held():
    # the 1.5B reader's reply to a dev question (the Debian reference card): the SQuAD
    # normalisation glues the port to the host name ("hostname631")
    reply = "The CUPS printing browser interface is reached at http://hostname:631."
    assert holds_answer(reply, ["631"]) == 1.0
    # a holdout reply writing the home directory with a spacing tilde (U+02DC)
    reply = "The user preferences are stored in ˜/.ecasound/ecasoundrc."
    assert holds_answer(reply, ["~/.ecasound/ecasoundrc", ".ecasound/ecasoundrc"]) == 1.0
    # as written means between characters that are no letters or digits
    assert holds_answer("It listens on http://hostname:6310.", ["631"]) == 0.0
    assert holds_answer("The default is 0.1.", [".1"]) == 0.0
    assert holds_answer("Its default is 8 bytes.", ["8 bytes"]) == 1.0
