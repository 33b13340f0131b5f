"""The reader's prompts for a choice question read one option at a time (this project's own,
no paper: ``read.choice: facts`` of :mod:`kgp_kedro.reading.choices`): KGP's Listing 3 layout,
first asked of each option's fact, then the question asked of the two facts alone."""
from __future__ import annotations

from collections.abc import Sequence

from kgp_kedro.prompts.kgp import ANSWER_INSTRUCTION, SEPARATOR


def fact_question(question: str, option: str) -> str:
    """What the contexts are asked about one option of a choice question: the fact about it
    that the question compares."""
    return (f"Do not answer this question: {question} Instead, give the fact about "
            f"{option} that it compares, as the contexts state it (for example a date, a "
            f"year, a number or a place).")


def facts_prompt(question: str, facts: Sequence[tuple[str, str]]) -> str:
    """The answering prompt of a choice question read one option at a time: each option with
    its fact, then the question (Listing 3's layout with the facts as its contexts)."""
    lines = "\n\n".join(f"{option}: {fact}" for option, fact in facts)
    return ("Given the following question and facts, create a final answer to the question."
            f"\n\nQUESTION: {question}\n\nFACTS:\n\n{lines}\n\n{SEPARATOR}\n\n"
            f"QUESTION: {question}\n\n{SEPARATOR}\n\n{ANSWER_INSTRUCTION}")
