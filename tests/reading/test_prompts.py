"""The reader prompts (paper Listings 2-4), the context budget and the answer parser."""
import pytest

from kgp_kedro.reading import fit_contexts, parse_answer, qa_prompt

QUESTION = "Which magazine was started first Arthur's Magazine or First for Women?"
CONTEXTS = ["Arthur's Magazine (1844-1846) was an American literary periodical.",
            "First for Women is a woman's magazine. The magazine was started in 1989.",
            "An unrelated passage about the 82nd Orange Bowl."]


def test_no_context_prompt_is_listing_2():
    assert qa_prompt(QUESTION) == (
        "Given the following question, create a final answer to the question.\n\n"
        f"QUESTION: {QUESTION}\n\nANSWER: Please answer in less than 6 words.")


def test_numbered_prompt_is_listing_3():
    prompt = qa_prompt(QUESTION, CONTEXTS)
    assert prompt.startswith("Given the following question and contexts, create a final answer "
                             f"to the question.\n\nQUESTION: {QUESTION}\n\nCONTEXT:\n\n1: Arthur's")
    assert f"\n\n3: {CONTEXTS[2]}\n\n=====\n\nQUESTION: {QUESTION}\n\n=====\n\n" in prompt
    assert prompt.endswith("ANSWER: Please answer in less than 6 words.")


def test_paths_prompt_is_listing_4():
    prompt = qa_prompt(QUESTION, ["a\nb", "c"], style="paths")
    assert f"=====\n\nQUESTION: {QUESTION}\n\n=====\n\nCONTEXT:\n\n- 1: a\nb\n\n- 2: c" in prompt
    with pytest.raises(ValueError, match="prompt style"):
        qa_prompt(QUESTION, CONTEXTS, style="fancy")


def test_budget_cuts_the_lowest_ranked_contexts_never_the_question():
    words = lambda text: len(text.split())  # noqa: E731 - a whitespace tokenizer
    full = words(qa_prompt(QUESTION, CONTEXTS))
    assert fit_contexts(QUESTION, CONTEXTS, words, full) == 3
    two = words(qa_prompt(QUESTION, CONTEXTS[:2]))
    assert fit_contexts(QUESTION, CONTEXTS, words, two) == 2      # the third (lowest) is cut
    assert fit_contexts(QUESTION, CONTEXTS, words, full - 1) == 2
    assert fit_contexts(QUESTION, CONTEXTS, words, words(qa_prompt(QUESTION))) == 0
    with pytest.raises(ValueError, match="question alone"):
        fit_contexts(QUESTION, CONTEXTS, words, 5)


@pytest.mark.parametrize("reply, answer", [
    ("Arthur's Magazine", "Arthur's Magazine"),
    ("ANSWER: Arthur's Magazine\nBecause it started in 1844.", "Arthur's Magazine"),
    ("\n\n**1844**", "1844"),
    ("Final answer: yes", "yes"),
    ("", ""),
])
def test_answer_is_the_first_line_without_prefix(reply, answer):
    assert parse_answer(reply) == answer
