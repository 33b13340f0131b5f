"""KGP (§4): TF-IDF seeds, then Algorithm 1 over the collection's KG with a traversal agent."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kgp_kedro.config.base import ParameterError
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs import Edges, Graph, Nodes
from kgp_kedro.retrievers import Requirements, Resources
from kgp_kedro.retrievers.kgp import Kgp, parse_agent

TEXTS = ["Basalt is a volcanic rock.",       # p0: the seed
         "Volcanic ash covers the island.",   # p1
         "The cat sat on the mat.",           # p2
         "Ash and rock layers.",              # p3
         "Granite is not volcanic."]          # p4: joined to nothing
IDS = [f"p{i}" for i in range(5)]
QUESTION = "Which volcanic rock is basalt?"


@pytest.fixture
def collection():
    #   p0 - p1 - p3,  p0 - p2,  p0 - e1 (an entity node, never retrieved)
    nodes = Nodes(IDS + ["e1"], ["passage"] * 5 + ["entity"], TEXTS + ["Basalt"],
                  IDS + [None], ["{}"] * 5 + [json.dumps({})])
    edges = Edges.uniform(np.array([0, 0, 1, 0]), np.array([1, 2, 3, 5]), np.ones(4),
                          [""] * 4, "keyword", directed=False)
    c = Collection("c", IDS, TEXTS, ["d0", "d1", "d2", "d3", "d4"], ["a", "b", "c", "d", "e"])
    c.graph = Graph(nodes, edges)
    return c


def _kgp(budget, **options):
    return Kgp(Kgp.Params(**options), Resources(budget))


def test_tfidf_agent_walks_from_the_seed_along_passage_edges(collection):
    kgp = _kgp(4, mode="distinct", seeds=1, branching_factor=1, max_hops=2,
               agent={"kind": "tfidf"})
    visits = kgp.retrieve(QUESTION, collection)
    # seed p0; its passage neighbours p1 ('volcanic') beat p2 (nothing shared); then p1 -> p3;
    # p3's path is 2 hops past the seed: the walk stops there
    assert [v.passage_id for v in visits] == ["p0", "p1", "p3"]
    assert [v.path for v in visits] == [("p0",), ("p0", "p1"), ("p0", "p1", "p3")]
    assert [v.hop for v in visits] == [0, 1, 2]
    # branching 2, 3 slots after the seed over 2 hops: hop 1 takes ⌈3/2⌉ = 2 (p1, p2), hop 2
    # the last one (p1 -> p3)
    wider = _kgp(4, mode="distinct", seeds=1, branching_factor=2, max_hops=2,
                 agent={"kind": "tfidf"})
    assert [v.passage_id for v in wider.retrieve(QUESTION, collection)] == ["p0", "p1", "p2",
                                                                           "p3"]
    assert kgp.model_calls() == 0  # TF-IDF needs no model


def test_paper_mode_returns_reasoning_paths(collection):
    # TF-IDF to the question: p0 1.0, p4 .38 ('is', 'volcanic'), p3 .22 ('rock'), p1 .14.
    # budget 8 paths, branching 2: seeds auto = 8 // 2 = 4 (p0, p4, p3, p1); max_hops auto = 1.
    # p0 -> p1 (.13), p2 (0); p4 has no passage neighbour and stays a path of its own;
    # p3 -> p1 (its only neighbour); p1 -> p0 (.82), p3 (.11): the seeds p0, p1, p3 are also
    # second passages of other paths (§8.2's overlap)
    kgp = _kgp(8, branching_factor=2, agent={"kind": "tfidf"})
    assert kgp.params.mode == "paper" and kgp.params.seeds_for(8) == 4 and kgp.params.hops == 1
    visits = kgp.retrieve(QUESTION, collection)
    assert [v.path for v in visits] == [("p0", "p1"), ("p0", "p2"), ("p4",), ("p3", "p1"),
                                        ("p1", "p0"), ("p1", "p3")]
    assert [v.passage_id for v in visits] == ["p1", "p2", "p4", "p1", "p0", "p3"]
    assert [v.hop for v in visits] == [1, 1, 0, 1, 1, 1]
    # max_hops 2 (7 slots for the 5 paths that grew): each grows by its one passage left off
    # the path, or stops ([p0 p2]: p2's only neighbour is on the path; [p1 p3] likewise)
    deeper = _kgp(8, branching_factor=2, max_hops=2, agent={"kind": "tfidf"})
    assert [v.path for v in deeper.retrieve(QUESTION, collection)] == [
        ("p0", "p1", "p3"), ("p0", "p2"), ("p4",), ("p3", "p1", "p0"), ("p1", "p0", "p2"),
        ("p1", "p3")]


def test_random_agent_is_seeded(collection):
    runs = [[v.passage_id for v in _kgp(5, mode="distinct", seeds=1,
                                        agent={"kind": "random", "seed": 3})
             .retrieve(QUESTION, collection)] for _ in range(2)]
    assert runs[0] == runs[1] and runs[0][0] == "p0" and "e1" not in runs[0]
    assert set(runs[0]) == {"p0", "p1", "p2", "p3"}


def test_kgp_needs_a_graph_and_a_known_agent(collection):
    collection.graph = None
    with pytest.raises(ValueError, match="KGP needs the collection's KG"):
        _kgp(4).retrieve(QUESTION, collection)
    with pytest.raises(ParameterError, match="agent.kind: unknown traversal agent 'tfidff'"):
        parse_agent({"kind": "tfidff"}, "agent")
    with pytest.raises(ParameterError, match="agent"):
        parse_agent({"seed": 1}, "agent")
    # the agent block is checked with the method's key (Params alone cannot name it)
    with pytest.raises(ParameterError, match="unknown traversal agent 'tfidff'") as error:
        Kgp.check(Kgp.Params(agent={"kind": "tfidff"}), "retrieve.methods.kgp_x")
    assert error.value.key == "retrieve.methods.kgp_x.agent.kind"
    with pytest.raises(ValueError, match="mode"):
        Kgp.Params(mode="fifo")
    with pytest.raises(ValueError, match="seeds"):
        Kgp.Params(seeds="10")


def test_requirements_follow_the_agent():
    assert Kgp.requirements(Kgp.Params()) == Requirements(graph=True)
    assert Kgp.requirements(Kgp.Params(agent={"kind": "encoder"})) == \
        Requirements(graph=True, embeddings=True)
    assert Kgp.requirements(Kgp.Params(agent={"kind": "chat"})) == \
        Requirements(graph=True, llm=True)
