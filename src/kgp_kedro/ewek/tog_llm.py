"""ToG's LLM steps (Sun et al. 2024, the baseline of EWEK-QA §3.1.2): relation pruning, entity
scoring and the reasoning (stop) step, through the project's LLM client, counting calls.

Replies are parsed leniently (small local models rarely keep the format): scores written as
``name (Score: 0.4)``, then candidates named in the reply in order of mention; a reply that
names no candidate scores them all equally in their listed order and counts as a failure.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from kgp_kedro.ewek.tog import KG_SEARCHES, Triple
from kgp_kedro.prompts.tog import entity_prompt, reasoning_prompt, relation_prompt

_SCORED = re.compile(r"([^\n;:{}]+?)\s*\(\s*score\s*:?\s*([0-9]*\.?[0-9]+)\s*\)", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])(?:0?\.\d+|1\.0*|0|1)(?![\w.])")


def _mentions(reply: str, candidates: Sequence[str]) -> list[int]:
    low = reply.lower()
    found = [(low.find(c.lower()), i) for i, c in enumerate(candidates) if c and c.lower() in low]
    return [i for _, i in sorted(found)]


def parse_scores(reply: str, candidates: Sequence[str],
                 positional: bool = False) -> tuple[list[float], bool]:
    """``(score per candidate, parsed)``. ``name (Score: x)`` pairs first; with
    ``positional``, a reply of exactly one number per candidate; then candidates mentioned
    (1 / rank of mention, others 0); else equal scores and ``parsed`` False."""
    scores = [0.0] * len(candidates)
    lowered = [c.lower().strip() for c in candidates]
    matched = False
    for name, value in _SCORED.findall(reply):
        name = re.sub(r"^\s*(?:\d+[.)]\s*|[-*]\s*)", "", name).strip().strip("'\"{}").lower()
        for i, c in enumerate(lowered):
            if name == c or (name and (name.endswith(c) or c.endswith(name))):
                scores[i] = max(scores[i], float(value))
                matched = True
                break
    if matched:
        return scores, True
    if positional:
        numbers = [float(x) for x in _NUMBER.findall(reply)]
        if len(numbers) == len(candidates):
            return numbers, True
    order = _mentions(reply, candidates)
    if order:
        for rank, i in enumerate(order):
            scores[i] = 1.0 / (rank + 1)
        return scores, True
    return [1.0 / len(candidates)] * len(candidates), False


def parse_yes(reply: str) -> bool:
    """The reasoning step's verdict: the reply's first word is yes."""
    words = re.findall(r"[a-z]+", reply.lower())
    return bool(words) and words[0] == "yes"


class LLMScorer:
    """ToG's pruning and reasoning through ``client`` (an :class:`~kgp_kedro.llm.LLMClient`):
    ``llm_calls`` counts the requests made (cached replies included: a cached run reports the
    same calls as a fresh one), ``failures`` the unparseable or failed replies."""

    def __init__(self, client, width: int, max_tokens: int) -> None:
        self.client, self.width, self.max_tokens = client, width, max_tokens
        self.llm_calls = self.failures = 0

    def _ask(self, prompt: str) -> str:
        self.llm_calls += 1
        reply = self.client.complete([{"role": "user", "content": prompt}], self.max_tokens)
        if reply.error:
            self.failures += 1
        return reply.text

    def _scores(self, prompt: str, candidates: Sequence[str], positional: bool) -> list[float]:
        scores, parsed = parse_scores(self._ask(prompt), candidates, positional)
        self.failures += not parsed
        return scores

    def relations(self, question: str, entity: str, relations: list[str]) -> list[float]:
        return self._scores(relation_prompt(question, entity, relations, self.width), relations,
                            positional=False)

    def entities(self, question: str, entity: str, relation: str,
                 candidates: list[str]) -> list[float]:
        return self._scores(entity_prompt(question, entity, relation, candidates), candidates,
                            positional=True)

    def enough(self, question: str, triples: list[Triple]) -> bool:
        return parse_yes(self._ask(reasoning_prompt(question, triples)))


@KG_SEARCHES.register("tog")
def tog_scorer(embedding, client, tog) -> LLMScorer:
    """ToG: the LLM prunes relations and entities and judges when the triples are enough."""
    return LLMScorer(client, tog.width, tog.prune_max_tokens)
