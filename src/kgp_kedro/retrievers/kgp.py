"""KGP (§4, §8.2): TF-IDF seeds, then Algorithm 1 over the KG of ``retrieve.graph`` with a
traversal agent (``agent.kind``, :mod:`kgp_kedro.agents`)."""
from __future__ import annotations

from typing import Any

from pydantic import Field

from kgp_kedro.agents.base import AGENTS, TraversalAgent
from kgp_kedro.config.base import NonNegInt, Params, PosInt, parse_named
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.retrievers.base import RETRIEVERS, Requirements, Resources, Retriever, Visit
from kgp_kedro.retrievers.traversal import traverse


def parse_agent(raw: Any, key: str) -> tuple[type[TraversalAgent], Params]:
    """The agent class named by ``raw['kind']`` and its validated options."""
    return parse_named(AGENTS, raw, key, "kind")


@RETRIEVERS.register("kgp")
class Kgp(Retriever):
    class Params(Params):
        seeds: PosInt = 10             # TF-IDF seed passages (§8.2: 10 first-hop passages)
        branching_factor: PosInt = 3   # neighbours visited per path (§8.2: 3)
        max_hops: NonNegInt = 2        # steps past the seed
        agent: dict[str, Any] = Field(default_factory=lambda: {"kind": "tfidf"})  # agents/

    @classmethod
    def check(cls, params: Params, key: str) -> None:
        parse_agent(params.agent, f"{key}.agent")

    @classmethod
    def requirements(cls, params: Params) -> Requirements:
        agent_cls, options = parse_agent(params.agent, "agent")
        return Requirements(graph=True) | agent_cls.requirements(options)

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, resources)
        agent_cls, options = parse_agent(params.agent, "agent")
        self.agent: TraversalAgent = agent_cls(options, resources)

    def model_calls(self) -> int:
        return self.calls + self.agent.calls

    def search(self, question: str, collection: Collection) -> list[Visit]:
        if collection.graph is None:
            raise ValueError("KGP needs the collection's KG")
        p = self.params
        order, scores = collection.tfidf().search(question, p.seeds)
        graph = collection.graph
        return traverse([collection.passage_ids[i] for i in order], scores,
                        lambda node: graph.neighbors(node, kind="passage"),
                        lambda path, candidates: self.agent.score(question, path, candidates,
                                                                  collection),
                        p.branching_factor, self.budget, p.max_hops)
