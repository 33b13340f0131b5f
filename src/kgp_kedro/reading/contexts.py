"""The reader's context budget (how many ranked contexts fit the window with the question, in
the prompts of §8.9: :func:`kgp_kedro.prompts.kgp.qa_prompt`) and the answer read off the
reply."""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from kgp_kedro.prompts.kgp import ANSWER_INSTRUCTION, qa_prompt


def fit_contexts(question: str, contexts: Sequence[str], count_tokens: Callable[[str], int],
                 max_prompt_tokens: int, style: str = "numbered",
                 instruction: str = ANSWER_INSTRUCTION) -> int:
    """How many of the ranked ``contexts`` fit in ``max_prompt_tokens`` with the question: the
    lowest-ranked contexts are cut first; the question is never cut (a question too long for
    the window alone raises)."""
    if count_tokens(qa_prompt(question, (), style, instruction)) > max_prompt_tokens:
        raise ValueError(f"the question alone exceeds the prompt budget of {max_prompt_tokens} "
                         f"tokens: {question[:80]!r}")
    low, high = 0, len(contexts)  # largest n with prompt(n) within budget (monotone in n)
    while low < high:
        mid = (low + high + 1) // 2
        if (count_tokens(qa_prompt(question, contexts[:mid], style, instruction))
                <= max_prompt_tokens):
            low = mid
        else:
            high = mid - 1
    return low


def within_passages(contexts: Sequence[Sequence[str]], max_passages: int | None) -> int:
    """How many of the ranked contexts (each its passage ids) come first while their distinct
    passages number at most ``max_passages`` (all when null)."""
    if max_passages is None:
        return len(contexts)
    seen: set[str] = set()
    for n, ids in enumerate(contexts):
        seen.update(ids)
        if len(seen) > max_passages:
            return n
    return len(contexts)


def within_documents(contexts: Sequence[Sequence[str]], document: Mapping[str, str],
                     max_documents: int | None) -> list[int]:
    """The positions of the ranked contexts (each its passage ids) a prompt of passages from at
    most ``max_documents`` documents reads (all when null): walking the ranking, a context
    whose passages would bring the documents held past the limit is skipped and the walk goes
    on, so the later passages of the documents already held still count (the passage budget,
    :func:`within_passages`, then fills from the best documents). ``document``: each passage's
    document id."""
    if max_documents is None:
        return list(range(len(contexts)))
    held: set[str] = set()
    kept = []
    for n, ids in enumerate(contexts):
        docs = held.union(document[p] for p in ids)
        if len(docs) <= max_documents:
            held = docs
            kept.append(n)
    return kept


_PREFIX = re.compile(r"^\s*(?:final\s+)?answer\s*[:：-]\s*", re.IGNORECASE)


def parse_answer(reply: str) -> str:
    """The answer in a reply: its first non-empty line without an ``ANSWER:`` prefix or
    surrounding markdown emphasis."""
    for line in reply.splitlines():
        line = _PREFIX.sub("", line.strip()).strip().strip("*").strip()
        if line:
            return line
    return ""
