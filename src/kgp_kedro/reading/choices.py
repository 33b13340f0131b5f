"""``read.choice: facts``: a choice question ("Which film came out first, X or Y?") read one
option at a time. The chosen reader answers such a question from its documents about as a coin
would, naming the option whose document comes first more often than not
(``benchmarks/bench_position_bias.py``); here each option's fact is asked from the same contexts
(one call an option: "What do the contexts say about X that this question compares?"), then the
question is asked of the two facts alone, so no document's place decides. One rule for every
retrieval method; a question that names no two options is read whole. ``whole``: every
question read in one call (the paper's)."""
from __future__ import annotations

import re

from kgp_kedro.llm import LLMClient
from kgp_kedro.prompts.choices import fact_question
from kgp_kedro.prompts.kgp import qa_prompt

CHOICES = ("whole", "facts")
# the last clause of a choice question: ", X or Y?"
OPTIONS = re.compile(r",\s*(?P<first>[^,?]+?)\s+or\s+(?P<second>[^,?]+?)\?\s*$")


def choice_options(question: str) -> tuple[str, str] | None:
    """The two options a choice question names in its last clause (``..., X or Y?``), or
    None for any other question."""
    match = OPTIONS.search(question)
    return (match["first"], match["second"]) if match else None


def read_by_facts(client: LLMClient, system: list[dict[str, str]], questions: list[str],
                  contexts: list[list[str]], style: str, method: str) -> dict[int, list]:
    """``read.choice: facts``: per choice question (its position in ``questions``; one that
    names no two options is not asked), each option's fact, asked of the question's prompt
    ``contexts`` in one call an option (:func:`~kgp_kedro.prompts.choices.fact_question`):
    ``[(option, completion), ...]``. A question whose fact call failed is left out, so it is
    read whole."""
    asked = [(i, option) for i, q in enumerate(questions) for option in choice_options(q) or ()]
    replies = client.complete_many(
        [[*system, {"role": "user", "content": qa_prompt(
            fact_question(questions[i], option), contexts[i], style)}] for i, option in asked],
        desc=f"facts {method}")
    facts: dict[int, list] = {}
    for (i, option), reply in zip(asked, replies):
        facts.setdefault(i, []).append((option, reply))
    return {i: pairs for i, pairs in facts.items() if not any(r.error for _, r in pairs)}
