"""The paper's reader prompts (§8.9): Listing 2 (no context), Listing 3 (numbered contexts) and
Listing 4 (one context per reasoning path, for MDR and the KGP agents), and the context budget.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

ANSWER_INSTRUCTION = "ANSWER: Please answer in less than 6 words."
SEPARATOR = "====="
STYLES = ("numbered", "paths")


def qa_prompt(question: str, contexts: Sequence[str] = (), style: str = "numbered") -> str:
    """The reader prompt. No contexts: Listing 2. ``numbered``: Listing 3 (``i: text``).
    ``paths``: Listing 4 (``- i: text``, each context a reasoning path's passages joined by
    newlines). The question is repeated after the contexts, as in the listings."""
    if style not in STYLES:
        raise ValueError(f"prompt style must be one of {STYLES}, got {style!r}")
    if not contexts:
        return ("Given the following question, create a final answer to the question.\n\n"
                f"QUESTION: {question}\n\n{ANSWER_INSTRUCTION}")
    bullet = "- " if style == "paths" else ""
    lines = "\n\n".join(f"{bullet}{i}: {text}" for i, text in enumerate(contexts, start=1))
    head = "Given the following question and contexts, create a final answer to the question."
    opening = (f"{head}\n\n{SEPARATOR}\n\nQUESTION: {question}\n\n{SEPARATOR}\n\n"
               if style == "paths" else f"{head}\n\nQUESTION: {question}\n\n")
    return (f"{opening}CONTEXT:\n\n{lines}\n\n{SEPARATOR}\n\nQUESTION: {question}\n\n"
            f"{SEPARATOR}\n\n{ANSWER_INSTRUCTION}")


def fit_contexts(question: str, contexts: Sequence[str], count_tokens: Callable[[str], int],
                 max_prompt_tokens: int, style: str = "numbered") -> int:
    """How many of the ranked ``contexts`` fit in ``max_prompt_tokens`` with the question: the
    lowest-ranked contexts are cut first; the question is never cut (a question too long for
    the window alone raises)."""
    if count_tokens(qa_prompt(question, (), style)) > max_prompt_tokens:
        raise ValueError(f"the question alone exceeds the prompt budget of {max_prompt_tokens} "
                         f"tokens: {question[:80]!r}")
    low, high = 0, len(contexts)  # largest n with prompt(n) within budget (monotone in n)
    while low < high:
        mid = (low + high + 1) // 2
        if count_tokens(qa_prompt(question, contexts[:mid], style)) <= max_prompt_tokens:
            low = mid
        else:
            high = mid - 1
    return low


_PREFIX = re.compile(r"^\s*(?:final\s+)?answer\s*[:：-]\s*", re.IGNORECASE)


def parse_answer(reply: str) -> str:
    """The answer in a reply: its first non-empty line without an ``ANSWER:`` prefix or
    surrounding markdown emphasis."""
    for line in reply.splitlines():
        line = _PREFIX.sub("", line.strip()).strip().strip("*").strip()
        if line:
            return line
    return ""
