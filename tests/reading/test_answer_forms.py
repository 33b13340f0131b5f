"""``read.answer_form``: the reply's first line (the paper's reading) or the answer without a
sentence frame, on the 0.5B reader's real Golden replies quoted in issue 34 (the questions are
the bundled dev questions they answered) and hand-made replies to real questions."""
from __future__ import annotations

import pytest

from kgp_kedro.reading.answers import final_answer, short_answer

YOUNGER = "who is younger Ulrich Walter or  Luca Parmitano?"                  # HotpotQA dev
RECENT = ("Which film was released more recently, Osmondagi Bolalar or Mcdull: Rise Of The "
          "Rice Cooker?")                                                        # 2Wiki dev
COUNTRY = "Which country the director of film The White Countess is from?"      # 2Wiki dev
EARLIER = "Who was born earlier, Silas Hardy or Lee Mantle?"                     # 2Wiki dev
ARTHUR = "Which film came out first, The Happy Life or King Arthur Was A Gentleman?"
POLAR = "Are Cardinal Health and Kansas City Southern located in the same state?"


@pytest.mark.parametrize(("reply", "question", "answer"), [
    # a choice question: the option the reply names before its frame
    ("Luca Parmitano is younger.", YOUNGER, "Luca Parmitano"),
    ("McDull: Rise of the Rice Cooker was released more recently.", RECENT,
     "McDull: Rise of the Rice Cooker"),
    ("Lee Mantle was born earlier.", EARLIER, "Lee Mantle"),
    # a title with a copula inside, named whole by the question: kept whole
    ("King Arthur Was a Gentleman", ARTHUR, "King Arthur Was a Gentleman"),
    # not a choice: the copula's side the question does not hold, its preposition dropped
    ("The White Countess is from the United States.", COUNTRY, "the United States"),
    # a polar question: yes / no
    ("Yes, both are in Missouri.", POLAR, "yes"),
    ("No.", POLAR, "no"),
    # "The answer is" dropped; a bare short answer only stripped
    ("The answer is Kansas City.", COUNTRY, "Kansas City"),
    ("\"Paris\".", COUNTRY, "Paris"),
    ("18 January 1866", EARLIER, "18 January 1866"),
])
def test_short_answer_drops_the_sentence_frame(reply, question, answer):
    assert short_answer(reply, question) == answer


def test_a_yes_to_a_question_that_is_not_polar_is_not_read_as_yes():
    assert short_answer("Yes Minister", COUNTRY) == "Yes Minister"


def test_final_answer_reads_the_first_line_then_the_form():
    reply = "ANSWER: Luca Parmitano is younger.\nBecause he was born in 1976."
    assert final_answer(reply, YOUNGER, "line") == "Luca Parmitano is younger."
    assert final_answer(reply, YOUNGER, "short") == "Luca Parmitano"
    with pytest.raises(ValueError, match="read.answer_form"):
        final_answer(reply, YOUNGER, "shortest")
