"""``read.select: reader``: before the answering call the reader itself is asked, in one short
call, which of the prompt's contexts are needed to answer the question; the answering call
reads those (at least ``read.select_min``: the best-ranked others are added when the reply
names fewer), still in rank order. One rule for every retrieval method, so a distractor that a
method brought along (a graph neighbour about the very entity asked) can be dropped before the
answer is read. A prompt with no more than ``select_min`` contexts is read whole, no call."""
from __future__ import annotations

import re
from collections.abc import Sequence

from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.client import Completion
from kgp_kedro.prompts.selection import select_prompt

SELECTIONS = ("none", "reader")
SELECT_MAX_TOKENS = 16   # "1, 3, 4": a few numbers
def parse_selection(reply: str, n: int, at_least: int) -> list[int]:
    """The 0-based positions of the contexts kept, in rank order: those the reply names (the
    numbers 1 to ``n`` in it), then the best-ranked others until ``at_least`` are kept."""
    chosen = {int(x) - 1 for x in re.findall(r"\d+", reply) if 1 <= int(x) <= n}
    for i in range(n):
        if len(chosen) >= at_least:
            break
        chosen.add(i)
    return sorted(chosen)


def select_contexts(client: LLMClient, questions: Sequence[str],
                    contexts: Sequence[Sequence[str]], at_least: int
                    ) -> list[tuple[list[int], Completion | None]]:
    """Per question, the positions of its ``contexts`` (ranked texts) the answering call reads
    and the selection call's completion (None where no call was made: at most ``at_least``
    contexts). A failed call keeps every context."""
    asked = [i for i, texts in enumerate(contexts) if len(texts) > at_least]
    replies = client.complete_many(
        [[{"role": "user", "content": select_prompt(questions[i], contexts[i])}] for i in asked],
        max_tokens=SELECT_MAX_TOKENS, desc="select")
    out: list[tuple[list[int], Completion | None]] = [
        (list(range(len(texts))), None) for texts in contexts]
    for i, reply in zip(asked, replies):
        n = len(contexts[i])
        out[i] = (list(range(n)) if reply.error else parse_selection(reply.text, n, at_least),
                  reply)
    return out
