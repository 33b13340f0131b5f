"""EWEK-QA's prompts: Dehghan et al., "EWEK-QA: Enhanced Web and Efficient Knowledge Graph
Retrieval for Citation-based Question Answering Systems", NAACL 2024
(shared/papers/ewek-qa.txt): the composer (A.4) and the citation judge (A.3). Byte-identical to
what the project has always sent (the LLM call cache is keyed by them)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Reference(Protocol):
    """What the composer's prompt reads of a quote (:class:`kgp_kedro.ewek.composer.Reference`)."""

    number: int
    text: str

# -- A.4: the composer, LLaMA-2's instruction (``ewek.composer.instruction``'s default); the
# short-answer sentence lets EM / F1 score the reply (as read.system_prompt does for the reader)
COMPOSER_INSTRUCTION = ("Given the following quotes answer the question. You are given quotes "
                        "with their numbers. Each quote used in the answer should be cited with "
                        "[ and ] symbols and the number of the quote in between. Answer with a "
                        "short phrase (a name, date, number, yes or no) followed by its "
                        "citations, e.g. Paris [2].")


# -- A.4: the composer's chat, the instruction then the question and the numbered quotes
def compose_messages(question: str, refs: Sequence[Reference], instruction: str) -> list[dict]:
    """A.4's prompt as chat messages: the instruction, then the question and numbered quotes."""
    listed = "\n".join(f"{r.number}: {r.text}" for r in refs)
    return [{"role": "system", "content": instruction},
            {"role": "user", "content": f"Question: {question}\n\nQuotes:\n{listed}\n\nAnswer:"}]


# -- A.3: the citation judge
def judge_prompt(sub_answer: str, quote: str) -> str:
    """A.3's citation judge prompt."""
    return ("You are given an Answer and a Context. Your task is to identify whether the "
            "information in the Answer is present in (or supported by) the information in the "
            'Context. Output "Yes" if the Answer is supported by the Context.\n'
            f"Answer: {sub_answer}\nContext: {quote}")
