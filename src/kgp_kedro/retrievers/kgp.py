"""KGP (§4, §8.2): TF-IDF seeds (or dense ones: ``seeds_from``), then Algorithm 1 over the KG
of ``retrieve.graph`` with a traversal agent (``agent.kind``, :mod:`kgp_kedro.retrievers.agents`).

``mode: paper`` (default) runs Algorithm 1 as §8.2 does: the budget counts reasoning paths,
``budget // branching_factor`` seeds (10 of 30 at branching 3) each branch into the agent's
top 3 neighbours, 30 paths of two passages, passages shared between paths. ``mode: distinct``
is the reference code's queue: a budget of distinct passages, spread over the hops up to
``max_hops``. :mod:`kgp_kedro.retrievers.traversal` states both exactly. The questions of a
run advance hop by hop together, ``batch_size`` at a time (:meth:`Kgp.retrieve_batch`).
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from pydantic import Field

from kgp_kedro.retrievers.agents.base import AGENTS, ScoreRequest, TraversalAgent
from kgp_kedro.config.base import NonNegInt, Params, PosInt, parse_named
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.retrievers.base import RETRIEVERS, Requirements, Resources, Retriever, Visit
from kgp_kedro.retrievers.structural import Routing, route, structural_visits
from kgp_kedro.retrievers.traversal import Step, Walk, drive, traverse_many, walk
from kgp_kedro.search.ranking import top_k
from kgp_kedro.retrievers.seeding import SeedSource, dense_scores
from kgp_kedro.search.tfidf import TextCounts, TfidfIndex


def tfidf_seeds_many(questions: Sequence[str], collections: Sequence[Collection],
                     top: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``top`` TF-IDF seeds (positions, scores; IDF over each question's collection, ties
    to the earlier passage) of each question, computed together: every distinct passage text
    of the collections is tokenised once (:class:`kgp_kedro.search.tfidf.TextCounts`). A
    collection that appears more than once (the pooled setting, a documents source) uses its
    own index, made once (``collection.tfidf()``), as a question run alone does. The scores
    are the same bits alone or in a batch."""
    counts = Counter(id(c) for c in collections)
    alone = [i for i, c in enumerate(collections) if counts[id(c)] == 1]
    union = TextCounts([t for i in alone for t in collections[i].texts]) if alone else None
    out = []
    for question, collection in zip(questions, collections):
        index = (TfidfIndex(collection.texts, union) if counts[id(collection)] == 1
                 else collection.tfidf())
        out.append(top_k(index.scores(question), top))
    return out


def charge_round(charged: list[int], asked: Sequence[int], calls: int) -> None:
    """Charge the questions of one batched scoring round its ``calls`` model calls: ``asked``
    holds the question of each request of the round. A question is charged its requests'
    share of the calls, rounded up: 1 for each question when one call served all the
    requests (the encoder agent), one per request when each request made its own call (the
    chat agent), and at least one for each question that took part in a round that called a
    model."""
    if not calls or not asked:
        return
    for i, requests in Counter(asked).items():
        charged[i] += math.ceil(calls * requests / len(asked))


def parse_agent(raw: Any, key: str) -> tuple[type[TraversalAgent], Params]:
    """The agent class named by ``raw['kind']`` and its validated options."""
    return parse_named(AGENTS, raw, key, "kind")


@RETRIEVERS.register("kgp")
class Kgp(Retriever):
    class Params(Params):
        # paper: the budget counts reasoning paths, first-hop passages may recur (§8.2);
        # distinct: the budget counts distinct passages (the reference code's queue)
        mode: Literal["paper", "distinct"] = "paper"
        # where the seeds come from: tfidf (§4: g = TF-IDF over the collection) or dense (the
        # stored passage embeddings' inner product with the encoded question, as DPR)
        seeds_from: SeedSource = "tfidf"
        # seed passages; auto: budget // branching_factor (§8.2: 30 // 3 = 10; Figure
        # 7a-b lowers the seeds as the branching factor grows, the budget fixed)
        seeds: PosInt | Literal["auto"] = "auto"
        branching_factor: PosInt = 3   # neighbours visited per path (§8.2: 3)
        # steps past the seed; auto: 1 in paper mode (§8.2's 2-hop retrieval: a seed and one
        # neighbour), 2 in distinct mode
        max_hops: NonNegInt | Literal["auto"] = "auto"
        batch_size: PosInt = 64        # questions whose traversals advance together
        agent: dict[str, Any] = Field(default_factory=lambda: {"kind": "tfidf"})  # agents/
        # §4: structural or content question? rules (default), llm (the paper's: the LLM of
        # parameters_llm.yml), off. Only over a KG with structural nodes (files with pages or
        # tables); a structural question gets its structural nodes' content, a content
        # question Algorithm 1 (retrievers/structural.py)
        routing: Routing = "rules"

        def seeds_for(self, budget: int) -> int:
            """The number of TF-IDF seeds under ``budget``."""
            if self.seeds == "auto":
                return max(1, budget // self.branching_factor)
            return self.seeds

        @property
        def hops(self) -> int:
            """The hop limit: ``max_hops``, or its mode's default."""
            if self.max_hops == "auto":
                return 1 if self.mode == "paper" else 2
            return self.max_hops

    @classmethod
    def check(cls, params: Params, key: str) -> None:
        parse_agent(params.agent, f"{key}.agent")

    @classmethod
    def requirements(cls, params: Params) -> Requirements:
        agent_cls, options = parse_agent(params.agent, "agent")
        return (Requirements(graph=True, llm=params.routing == "llm",
                             embeddings=params.seeds_from == "dense")
                | agent_cls.requirements(options))

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, resources)
        agent_cls, options = parse_agent(params.agent, "agent")
        self.agent: TraversalAgent = agent_cls(options, resources)

    @property
    def batch_size(self) -> int:
        return self.params.batch_size

    def model_calls(self) -> int:
        return self.calls + self.agent.calls

    def prepare(self, collections: Sequence[Collection]) -> None:
        self.agent.prepare(collections)

    def seeds(self, questions: Sequence[str], collections: Sequence[Collection]
              ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The seeds (positions, scores) of each question, from ``seeds_from``: TF-IDF
        (:func:`tfidf_seeds_many`) or dense (one encoder call for all the questions)."""
        top = self.params.seeds_for(self.budget)
        if self.params.seeds_from == "tfidf" and len(questions) == 1:
            return [top_k(collections[0].tfidf().scores(questions[0]), top)]
        if self.params.seeds_from == "tfidf":
            return tfidf_seeds_many(questions, collections, top)
        device = self.resources.encoder.device if self.resources.encoder is not None else "cpu"
        return [top_k(s, top) for s in dense_scores(questions, collections, self.encode_questions,
                                                   device)]

    def _walk(self, question: str, collection: Collection,
              seeds: tuple[np.ndarray, np.ndarray] | None = None) -> Walk:
        """The walk of one question from its seeds (``seeds``: already computed)."""
        if collection.graph is None:
            raise ValueError("KGP needs the collection's KG")
        p = self.params
        order, scores = seeds or self.seeds([question], [collection])[0]
        graph = collection.graph
        return walk([collection.passage_ids[i] for i in order], scores,
                    lambda node: graph.neighbors(node, kind="passage"), p.branching_factor,
                    self.budget, p.hops, p.mode)

    def route(self, questions: Sequence[str], collections: Sequence[Collection]
              ) -> tuple[list, list[int]]:
        """Each question's structural keys by ``routing`` and the questions the LLM classified
        (:func:`~kgp_kedro.retrievers.structural.route`)."""
        keys, asked = route(questions, collections, self.params.routing, self.resources.llm)
        self.calls += len(asked)
        return keys, asked

    def search(self, question: str, collection: Collection) -> list[Visit]:
        """One question: a structural one gets its structural nodes' content; a content one
        Algorithm 1, each step scored by the agent on its own."""
        key = self.route([question], [collection])[0][0]
        if key is not None:
            return structural_visits(key, question, collection.graph, self.budget)
        return drive(self._walk(question, collection),
                     lambda path, candidates: self.agent.score(question, path, candidates,
                                                               collection))

    def retrieve_batch(self, questions: Sequence[str],
                       collections: Sequence[Collection]) -> list[list[Visit]]:
        """The questions' traversals advanced together: their seeds computed together
        (:meth:`seeds`), then at each step the pending ``(path, candidates)`` of
        every question go to one :meth:`TraversalAgent.score_batch` call (one encoder call
        and one product for the encoder agent). Same visits as :meth:`retrieve` on each
        question. :attr:`batch_calls`: each question's LLM routing call, its share of the
        dense seeds' encoder call (1) and of each scoring round (:func:`charge_round`)."""
        live = [i for i, c in enumerate(collections) if c.passage_ids]
        if any(collections[i].graph is None for i in live):
            raise ValueError("KGP needs the collection's KG")
        charged = [0] * len(questions)
        keys, asked = self.route([questions[i] for i in live], [collections[i] for i in live])
        for j in asked:                  # the LLM classified each routed question once
            charged[live[j]] += 1
        structural = {i: k for i, k in zip(live, keys) if k is not None}
        live = [i for i in live if i not in structural]
        before = self.calls
        seeds = self.seeds([questions[i] for i in live], [collections[i] for i in live])
        for i in live:                   # one encoder call (dense seeds) for all of them
            charged[i] += self.calls - before
        walks = [self._walk(questions[i], collections[i], s) for i, s in zip(live, seeds)]

        def score(batch: list[tuple[int, Step]]):
            before = self.agent.calls
            scores = self.agent.score_batch([
                ScoreRequest(questions[live[w]], tuple(path), tuple(candidates),
                             collections[live[w]]) for w, (path, candidates) in batch])
            charge_round(charged, [live[w] for w, _ in batch], self.agent.calls - before)
            return scores

        out: list[list[Visit]] = [[] for _ in questions]
        for i, key in structural.items():
            out[i] = structural_visits(key, questions[i], collections[i].graph, self.budget)
        for i, visits in zip(live, traverse_many(walks, score)):
            out[i] = visits
        self.batch_calls = charged
        return out
