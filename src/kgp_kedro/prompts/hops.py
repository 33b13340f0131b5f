"""The reader's prompts for a question read one hop at a time (this project's own, no paper:
``read.hops: typed`` of :mod:`kgp_kedro.reading.hops`): the question first broken into
sub-questions, MuSiQue's decomposition format (``#k`` stands for the k-th sub-question's
answer), shown by the train files' own decompositions; each sub-question is then asked with
KGP's Listing 3 prompt (:func:`kgp_kedro.prompts.kgp.qa_prompt`)."""
from __future__ import annotations

from collections.abc import Sequence

DECOMPOSE_INSTRUCTION = (
    "Break the question into simple questions that answer it one step at a time. Write them "
    "numbered, one a line, and write #1, #2, ... where a question needs the answer of an "
    "earlier one. A question that takes one step stays one line. Write nothing else.")


def decompose_system(examples: Sequence[tuple[str, Sequence[str]]]) -> str:
    """The system message of the decomposition call: the instruction, then each example
    question with its numbered sub-questions (the same for every question, so the model's
    cache of it serves every call)."""
    shown = "\n\n".join(
        f"Q: {question}\n" + "\n".join(f"{k}. {hop}" for k, hop in enumerate(hops, start=1))
        for question, hops in examples)
    return f"{DECOMPOSE_INSTRUCTION}\n\nExamples:\n\n{shown}"


def decompose_prompt(question: str) -> str:
    """The decomposition call's user message: the question, as the examples show theirs."""
    return f"Q: {question}"
