"""IRCoT (Trivedi et al. 2022) as the KGP paper runs it (§8.2): interleave one chain-of-thought
sentence from the LLM with BM25 retrieval of the top passages for that sentence, until the
context budget is spent or the chain states its answer."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.prompts.ircot import ircot_prompt
from kgp_kedro.retrievers.base import RETRIEVERS, Requirements, Retriever, Visit
from kgp_kedro.search.lexical import Bm25Index
from kgp_kedro.search.ranking import ranked as rank_order

_ANSWERED = re.compile(r"answer is", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class IrcotStep:
    """One reasoning step: the sentence generated and the passages it retrieved."""

    sentence: str
    retrieved: tuple[int, ...]


def _fitted_prompt(question: str, contexts: Sequence[str], thoughts: Sequence[str], llm,
                   max_tokens: int) -> str:
    """The prompt with as many of the earliest-retrieved contexts as fit the LLM's window."""
    room = llm.context_window - max_tokens
    kept = len(contexts)
    while kept and llm.count_tokens(ircot_prompt(question, contexts[:kept], thoughts)) > room:
        kept -= 1
    return ircot_prompt(question, contexts[:kept], thoughts)


def ircot_search(question: str, texts: Sequence[str], llm, index: Bm25Index, budget: int,
                 step_k: int, max_steps: int | None,
                 max_tokens: int) -> tuple[np.ndarray, np.ndarray, list[IrcotStep]]:
    """Positions of the retrieved passages in retrieval order, their BM25 scores, and the
    steps (``index``: the BM25 index of ``texts``). Step 0 retrieves ``step_k`` passages for the question; each next step asks ``llm``
    for the next reasoning sentence and retrieves the ``step_k`` best unseen passages for it."""
    order: list[int] = []
    scores: list[float] = []
    steps: list[IrcotStep] = []
    thoughts: list[str] = []

    def retrieve(query: str) -> tuple[int, ...]:
        ranked, seen = index.scores(query), set(order)
        fresh = [int(i) for i in rank_order(ranked) if int(i) not in seen]
        taken = tuple(fresh[:min(step_k, budget - len(order))])
        order.extend(taken)
        scores.extend(float(ranked[i]) for i in taken)
        return taken

    steps.append(IrcotStep(question, retrieve(question)))
    limit = max_steps if max_steps is not None else -(-budget // step_k)
    while len(order) < min(budget, len(texts)) and len(steps) <= limit:
        reply = llm.complete([{"role": "user", "content": _fitted_prompt(
            question, [texts[i] for i in order], thoughts, llm, max_tokens)}],
            max_tokens).text.strip()
        sentence = _SENTENCE.split(reply)[0] if reply else ""
        if not sentence:
            break
        thoughts.append(sentence)
        steps.append(IrcotStep(sentence, retrieve(sentence)))
        if _ANSWERED.search(sentence):
            break
    return np.asarray(order, dtype=np.int64), np.asarray(scores), steps


@RETRIEVERS.register("ircot")
class Ircot(Retriever):
    """IRCoT: one LLM reasoning sentence per step, BM25's ``step_k`` best new passages for each,
    until the budget or "the answer is"."""

    class Params(Params):
        step_k: PosInt = 5
        max_steps: PosInt | None = None   # null: as many as the budget allows
        max_tokens: PosInt = 48           # one reasoning sentence
        k1: float = 1.5                   # the BM25 it retrieves with
        b: float = 0.75

    needs = Requirements(llm=True)

    def search(self, question: str, collection: Collection) -> list[Visit]:
        llm, p = self.resources.llm, self.params
        requests = llm.requests
        positions, scores, steps = ircot_search(question, collection.texts, llm,
                                                collection.bm25(p.k1, p.b), self.budget,
                                                p.step_k, p.max_steps, p.max_tokens)
        self.calls += llm.requests - requests
        step_of = {pos: s for s, step in enumerate(steps) for pos in step.retrieved}
        ids = collection.passage_ids
        return [Visit(ids[pos], (ids[pos],), step_of[pos], float(s))
                for pos, s in zip(positions, scores)]
