"""EM / F1 / Hits@1 definitions, worked by hand, and the judge prompt (paper Listing 5), whose
verdict is the paper's Acc."""
import pytest

from kgp_kedro.evaluation.qa_metrics import (contains_answer, exact_match, f1_score,
                                             normalize_answer, parse_judgement)
from kgp_kedro.prompts.kgp import judge_prompt


@pytest.mark.parametrize("text, expected", [
    ("The Walt Disney Company.", "walt disney company"),
    ("  An   apple, a PEAR!", "apple pear"),
    ("Arthur's Magazine", "arthurs magazine"),
    ("theatre", "theatre"),                       # 'the' only as a whole word
])
def test_normalisation_drops_case_punctuation_articles_and_spacing(text, expected):
    assert normalize_answer(text) == expected


def test_exact_match_uses_aliases():
    # MuSiQue gives aliases: any of them counts
    assert exact_match("the USA", ["United States", "USA"]) == 1.0
    assert exact_match("America", ["United States", "USA"]) == 0.0


def test_token_f1_by_hand():
    # prediction tokens: [walt, disney]; gold: [walt, disney, company]
    # common 2: precision 2/2, recall 2/3 -> F1 = 2 * 1 * (2/3) / (1 + 2/3) = 0.8
    assert f1_score("Walt Disney", "The Walt Disney Company") == pytest.approx(0.8)
    # best alias wins: 'USA' matches the second alias exactly
    assert f1_score("USA", ["United States of America", "USA"]) == 1.0
    # repeated tokens count once per occurrence (multiset overlap): pred [new, new, york],
    # gold [new, york]: common 2, precision 2/3, recall 1 -> 0.8
    assert f1_score("new new york", "New York") == pytest.approx(0.8)


def test_yes_no_answers_score_only_when_exact():
    assert f1_score("yes", "no") == 0.0
    assert f1_score("no", "no") == 1.0
    # HotpotQA's rule: 'yes' against a non-yes/no gold gives 0 even with overlap
    assert f1_score("yes", "yes it is") == 0.0
    assert exact_match("Yes.", ["yes"]) == 1.0


def test_contains_answer_is_hits1_and_needs_whole_words():
    # EWEK-QA's Hits@1 (the hits1 column), not the paper's Acc (the LLM judge, acc)
    assert contains_answer("It was started in 1844 by Arthur", "1844") == 1.0
    assert contains_answer("18440", "1844") == 0.0
    assert contains_answer("", "1844") == 0.0


def test_empty_gold_list_scores_zero():
    assert exact_match("anything", []) == 0.0 and f1_score("anything", [""]) == 0.0


def test_judge_prompt_is_listing_5_and_its_reply_is_parsed():
    prompt = judge_prompt("Which year was Marvel started?", "1939", "1939")
    assert prompt.startswith("You are an expert professor specialized in grading")
    assert "Prediction: 1200\n\nReturn: 0" in prompt  # the third worked example
    assert prompt.endswith("Return: your reply can only be one number '0' or '1'")
    assert parse_judgement("1") == 1.0 and parse_judgement("Return: 0") == 0.0
    assert parse_judgement("I cannot tell") is None
