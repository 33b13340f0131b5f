"""The reader's prompt for a choice question read one option at a time (this project's own,
no paper: ``read.choice: dates`` of :mod:`kgp_kedro.reading.choices`): KGP's Listing 3 layout,
asked of each option's fact."""
from __future__ import annotations


def fact_question(question: str, option: str) -> str:
    """What the contexts are asked about one option of a choice question: the fact about it
    that the question compares."""
    return (f"Do not answer this question: {question} Instead, give the fact about "
            f"{option} that it compares, as the contexts state it (for example a date, a "
            f"year, a number or a place).")
