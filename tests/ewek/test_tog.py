"""ToG-E and ToG beam search (EWEK-QA §3.1.2) on a hand-built entity-relation graph: which
triples each depth keeps, worked out by hand from chosen cosines; ToG's LLM steps through a
local OpenAI-compatible server, with its call count."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from kgp_kedro.ewek.tog import EmbeddingScorer, RelationGraph, beam_search
from kgp_kedro.ewek.tog_llm import LLMScorer, parse_scores, parse_yes
from kgp_kedro.graphs.model import Edges, Graph, Nodes

QUESTION = "Where was the husband of Jolie born?"
ENTITIES = {"jolie": "Jolie", "pitt": "Pitt", "la": "Los Angeles", "shawnee": "Shawnee",
            "smith": "Mr. Smith", "california": "California", "oklahoma": "Oklahoma"}
TRIPLES = [("jolie", "spouse", "pitt"), ("jolie", "born_in", "la"),
           ("pitt", "born_in", "shawnee"), ("pitt", "acted_in", "smith"),
           ("la", "located_in", "california"), ("shawnee", "located_in", "oklahoma")]
# cosine of each text to the question
COSINE = {QUESTION: 1.0, "spouse": 0.9, "born in": 0.5, "acted in": 0.2, "located in": 0.1,
          "Jolie": 0.0, "Pitt": 0.8, "Los Angeles": 0.4, "Shawnee": 0.6, "Mr. Smith": 0.5,
          "California": 0.3, "Oklahoma": 0.2}


def fake_encode(texts):
    """Unit vectors whose cosine to the question's is COSINE[text]."""
    return np.array([[COSINE[t], math.sqrt(1 - COSINE[t] ** 2)] for t in texts])


def hand_graph() -> Graph:
    ids = list(ENTITIES)
    position = {n: i for i, n in enumerate(ids)}
    nodes = Nodes(ids, ["entity"] * len(ids), [ENTITIES[n] for n in ids], [None] * len(ids),
                  ["{}"] * len(ids))
    n = len(TRIPLES)
    edges = Edges(np.array([position[h] for h, _, _ in TRIPLES]),
                  np.array([position[t] for _, _, t in TRIPLES]), np.ones(n), [""] * n,
                  [r for _, r, _ in TRIPLES], [True] * n,
                  [json.dumps({"passage_id": f"p{i}"}) for i in range(n)])
    return Graph(nodes, edges)


def test_topic_entities_are_the_entities_named_in_the_question():
    graph = RelationGraph(hand_graph())
    assert graph.topic_entities(QUESTION, 3) == ["jolie"]
    assert graph.topic_entities("Who lives in Los Angeles, California?", 3) == \
        ["la", "california"]   # longest name first
    # none named: the nearest by the given ranking
    assert graph.topic_entities("Who?", 2, lambda ids: sorted(ids)[::-1]) == \
        ["smith", "shawnee"]


def test_toge_keeps_the_best_relations_then_the_best_triples_at_each_depth():
    graph = RelationGraph(hand_graph())
    scorer = EmbeddingScorer(fake_encode, QUESTION)
    result = beam_search(graph, QUESTION, ["jolie"], scorer, width=2, depth=3)
    by_depth = {}
    for t in result.triples:
        by_depth.setdefault(t.depth, []).append((t.head, t.relation, t.tail, round(t.score, 4)))
    # depth 1: relations of Jolie: spouse .9, born in .5 (both kept); entities: Pitt .8,
    # LA .4 -> .9 x .8 = .72 and .5 x .4 = .2
    assert by_depth[1] == [("jolie", "spouse", "pitt", 0.72), ("jolie", "born_in", "la", 0.2)]
    # depth 2: beam Pitt, LA; pairs (Pitt, born in) .5, (Pitt, acted in) .2, (LA, located in)
    # .1 -> the first two; Shawnee .6 -> .3, Mr. Smith .5 -> .1
    assert by_depth[2] == [("pitt", "born_in", "shawnee", 0.3),
                           ("pitt", "acted_in", "smith", 0.1)]
    # depth 3: beam Shawnee, Mr. Smith; only (Shawnee, located in) leads anywhere: .1 x .2
    assert by_depth[3] == [("shawnee", "located_in", "oklahoma", 0.02)]
    assert result.llm_calls == 0 and result.stopped_at == 3
    # the evidence of a triple is its edge's passage
    assert result.triples[0].evidence == ("p0",)
    assert result.triples[0].verbalise() == "(Jolie, spouse, Pitt)"


def test_width_and_depth_bound_the_search():
    graph = RelationGraph(hand_graph())
    result = beam_search(graph, QUESTION, ["jolie"], EmbeddingScorer(fake_encode, QUESTION),
                         width=1, depth=2)
    assert [(t.depth, t.head, t.relation, t.tail) for t in result.triples] == [
        (1, "jolie", "spouse", "pitt"), (2, "pitt", "born_in", "shawnee")]


def test_fact_nodes_give_subject_relation_object_triples():
    nodes = Nodes(["e1", "e2", "f1"], ["entity", "entity", "fact"],
                  ["Jolie", "Pitt", "spouse"], [None, None, "doc#3"],
                  ["{}", "{}", json.dumps({"relation": "spouse"})])
    edges = Edges(np.array([2, 2]), np.array([0, 1]), np.ones(2), ["", ""],
                  ["subject", "object"], [True, True], ["{}", "{}"])
    graph = RelationGraph(Graph(nodes, edges))
    edge = graph.incident("e1")[0]
    assert (edge.head, edge.relation, edge.tail, edge.evidence) == ("e1", "spouse", "e2",
                                                                    ("doc#3",))


def test_parse_scores_reads_tog_replies_and_says_when_it_cannot():
    cands = ["spouse", "born_in", "acted_in"]
    assert parse_scores("1. {spouse (Score: 0.7)}; 2. born_in (Score: 0.3)", cands) == \
        ([0.7, 0.3, 0.0], True)
    assert parse_scores("0.2, 0.8", ["a", "b"], positional=True) == ([0.2, 0.8], True)
    assert parse_scores("I think acted_in, then spouse", cands) == ([0.5, 0.0, 1.0], True)
    assert parse_scores("no idea", cands) == ([1 / 3] * 3, False)
    assert parse_yes("Yes, the triples answer it.") and not parse_yes("No. {Yes}")


def tog_reply(prompt: str) -> str:
    if prompt.startswith("Please retrieve"):
        return "spouse (Score: 0.9); born_in (Score: 0.1)"
    if prompt.startswith("Please score"):
        return "1.0"
    return "Yes"


def test_tog_prunes_and_stops_through_the_llm_counting_its_calls():
    from kgp_kedro.llm import make_llm
    from tests.llm.fake_openai_server import FakeOpenAIServer

    with FakeOpenAIServer(reply=tog_reply) as server:
        client = make_llm({"backend": "openai", "cache": None,
                           "openai": {"model": "fake", "base_url": server.base_url,
                                      "api_key_env": "PATH", "max_retries": 0}})
        scorer = LLMScorer(client, width=2, max_tokens=32)
        result = beam_search(RelationGraph(hand_graph()), QUESTION, ["jolie"], scorer, 2, 3)
    # depth 1: one relation call (Jolie), one entity call per kept relation (2), one
    # reasoning call that answers Yes: the search stops after depth 1
    assert result.llm_calls == 4 == len(server.requests) and result.failures == 0
    assert result.stopped_at == 1
    assert [(t.tail, round(t.score, 3)) for t in result.triples] == [("pitt", 0.9), ("la", 0.1)]
    assert 2 * 2 * 3 + 3 + 1 >= result.llm_calls + 1   # within ToG's 2ND + D + 1 with the answer


@pytest.mark.parametrize("depth", [1, 3])
def test_toge_never_calls_an_llm_and_always_reaches_depth(depth):
    result = beam_search(RelationGraph(hand_graph()), QUESTION, ["jolie"],
                         EmbeddingScorer(fake_encode, QUESTION), 3, depth)
    assert result.llm_calls == 0 and result.stopped_at == depth
