"""Sub-graph retrieval (EWEK-QA §3.1.2): Think-on-Graph's beam search over an entity-relation
graph, width N and depth D.

At each depth the beam's entities (first: the question's topic entities) offer their relations;
relation pruning keeps the N best (entity, relation) pairs; their neighbours through those
relations are the candidate triples, and entity pruning keeps the N best triples, scored as
ToG does by relation score x entity score; their new entities are the next beam.

- **ToG-E** (:class:`EmbeddingScorer`): LLM-free; relations and entities are scored by the
  cosine of their sentence embeddings to the question's (clipped at 0), there is no reasoning
  step, and the kept triples of every depth are the output.
- **ToG** (:class:`LLMScorer`): one LLM call per beam entity to prune its relations, one per
  kept (entity, relation) to score its candidate entities, and one reasoning call per depth
  that stops the search when the triples suffice; with the answer call that is at most
  2ND + D + 1 calls (§4.4.1).

The graph is :class:`~kgp_kedro.graphs.model.Graph`: ``entity`` nodes joined by edges whose
``relation`` names the relation (a directed edge reads ``src relation dst``), or ``fact``
nodes joined to their subject and object entities by ``subject`` / ``object`` edges (the fact
node's text or ``relation`` attribute names the relation), as HOLMES' fact graph
(:func:`kgp_kedro.facts.fact_graph`) holds both (each fact read once). A triple's evidence is
the passage of its fact node, the ``passage_id`` / ``passage_ids`` qualifiers of its edge, or
what ``locate(qualifiers, evidence sentence)`` finds.
"""
from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from kgp_kedro.evaluation.qa_metrics import normalize_answer
from kgp_kedro.graphs.model import Graph
from kgp_kedro.plumbing.registry import Registry
from kgp_kedro.prompts.tog import relation_text
from kgp_kedro.search.ranking import ranked

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Edge:
    head: str
    relation: str
    tail: str
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Triple:
    head: str          # node ids
    relation: str
    tail: str
    head_text: str
    tail_text: str
    depth: int
    score: float
    evidence: tuple[str, ...] = ()

    def verbalise(self) -> str:
        return f"({self.head_text}, {self.relation}, {self.tail_text})"


def _passages(values: dict) -> tuple[str, ...]:
    ids = values.get("passage_ids") or ([values["passage_id"]] if values.get("passage_id") else [])
    return tuple(str(i) for i in ids)


class RelationGraph:
    """The entity-relation view of a :class:`Graph` that the beam search walks: each entity's
    incident relation edges, both directions (ToG explores head and tail relations)."""

    def __init__(self, graph: Graph,
                 locate: Callable[[dict, str], tuple[str, ...]] | None = None) -> None:
        nodes = graph.nodes
        self.text = dict(zip(nodes.ids, nodes.texts))
        kind = dict(zip(nodes.ids, nodes.kinds))
        passage = dict(zip(nodes.ids, nodes.passage_ids))
        attributes = dict(zip(nodes.ids, nodes.attributes))
        self._edges: dict[str, list[Edge]] = {}
        roles: dict[str, dict[str, list[str]]] = {}
        facts_as_edges: set[str] = set()   # facts already read from their relation edge
        ids, e = nodes.ids, graph.edges
        for i in range(len(e)):
            u, v, rel = ids[e.src[i]], ids[e.dst[i]], e.relation[i]
            if u == v:
                continue
            if kind[u] == kind[v] == "entity" and rel != "mentions":
                quals = json.loads(e.qualifiers[i] or "{}")
                evidence = _passages(quals) or (locate(quals, e.evidence[i]) if locate else ())
                self._add(Edge(u, rel, v, evidence))
                if quals.get("fact"):
                    facts_as_edges.add(quals["fact"])
            elif {kind[u], kind[v]} == {"entity", "fact"} and rel in ("subject", "object"):
                fact, entity = (u, v) if kind[u] == "fact" else (v, u)
                roles.setdefault(fact, {}).setdefault(rel, []).append(entity)
        for fact, role in roles.items():
            if fact in facts_as_edges:
                continue
            relation = json.loads(attributes[fact] or "{}").get("relation") or self.text[fact]
            evidence = (passage[fact],) if passage[fact] else ()
            for s in role.get("subject", []):
                for o in role.get("object", []):
                    if s != o:
                        self._add(Edge(s, relation, o, evidence))
        self.entities = [n for n in nodes.ids if kind[n] == "entity"]

    def _add(self, edge: Edge) -> None:
        self._edges.setdefault(edge.head, []).append(edge)
        self._edges.setdefault(edge.tail, []).append(edge)

    def incident(self, entity: str) -> list[Edge]:
        return self._edges.get(entity, [])

    def topic_entities(self, question: str, limit: int,
                       nearest: Callable[[list[str]], list[str]] | None = None) -> list[str]:
        """Entities named in the question (normalised whole words, longest name first), else
        the ``limit`` nearest by ``nearest`` (ids in order); only entities with relations."""
        q = f" {normalize_answer(question)} "
        linked = [n for n in self.entities if self._edges.get(n)]
        named = sorted((n for n in linked if (t := normalize_answer(self.text[n]))
                        and f" {t} " in q), key=lambda n: (-len(self.text[n]), n))
        if named or nearest is None:
            return named[:limit]
        return nearest(linked)[:limit]


# ``ewek.methods.<name>.kg`` -> how the beam search scores relations and entities: a function
# ``(the question's EmbeddingScorer, the LLM client, ewek.tog) -> scorer`` registered with
# ``@KG_SEARCHES.register("<kg>")``
KG_SEARCHES: Registry = Registry("EWEK-QA KG search", "kgp_kedro.ewek")


class EmbeddingScorer:
    """ToG-E's pruning: cosine of sentence embeddings to the question's, clipped at 0 (texts
    encoded once per search, in one batch per step)."""

    llm_calls = 0

    def __init__(self, encode: Callable[[Sequence[str]], np.ndarray], question: str) -> None:
        self._encode, self._memo = encode, {}
        self._question = self.vectors([question])[0]

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            self._memo.update(zip(missing, self._encode(missing)))
        return np.stack([self._memo[t] for t in texts]) if texts else np.zeros((0, 0))

    def similarity(self, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        return [max(0.0, float(s)) for s in self.vectors(texts) @ self._question]

    def nearest(self, graph: RelationGraph) -> Callable[[list[str]], list[str]]:
        def rank(entities: list[str]) -> list[str]:
            scores = self.similarity([graph.text[n] for n in entities])
            return [entities[i] for i in ranked(np.asarray(scores))]
        return rank

    def relations(self, question: str, entity: str, relations: list[str]) -> list[float]:
        return self.similarity([relation_text(r) for r in relations])

    def entities(self, question: str, entity: str, relation: str,
                 candidates: list[str]) -> list[float]:
        return self.similarity(candidates)

    def enough(self, question: str, triples: list[Triple]) -> bool:
        return False   # ToG-E has no reasoning step: it always searches to depth D


@KG_SEARCHES.register("toge")
def toge_scorer(embedding: EmbeddingScorer, client, tog) -> EmbeddingScorer:
    """ToG-E: relations and entities scored by the question's embedding (no LLM call)."""
    return embedding


@dataclass
class SearchResult:
    triples: list[Triple]
    topics: list[str]
    llm_calls: int = 0
    failures: int = 0
    stopped_at: int = 0     # the depth the search ended at
    trace: list[str] = field(default_factory=list)


def beam_search(graph: RelationGraph, question: str, topics: list[str], scorer, width: int,
                depth: int) -> SearchResult:
    """ToG's beam search from ``topics`` with ``scorer`` (:class:`EmbeddingScorer` for ToG-E,
    :class:`LLMScorer` for ToG). Ties keep the lexicographically first (entity, relation,
    tail) so the result does not depend on edge order."""
    beam, seen, kept = list(topics), set(topics), []
    result = SearchResult([], list(topics))
    for d in range(1, depth + 1):
        if not beam:
            break
        # relation exploration and pruning: the best `width` (entity, relation) pairs among
        # the relations that lead somewhere new
        pairs = []
        for entity in beam:
            relations = sorted({e.relation for e in graph.incident(entity)
                                if (e.tail if e.head == entity else e.head) not in seen})
            if relations:
                scores = scorer.relations(question, graph.text[entity], relations)
                pairs.extend((s, entity, r) for r, s in zip(relations, scores))
        pairs = sorted(pairs, key=lambda p: (-p[0], p[1], p[2]))[:width]
        # entity exploration and pruning: the best `width` triples
        candidates = []
        for rel_score, entity, relation in pairs:
            edges = [e for e in graph.incident(entity) if e.relation == relation
                     and (e.tail if e.head == entity else e.head) not in seen]
            if not edges:
                continue
            others = sorted({e.tail if e.head == entity else e.head for e in edges})
            scores = dict(zip(others, scorer.entities(question, graph.text[entity], relation,
                                                      [graph.text[o] for o in others])))
            for e in edges:
                other = e.tail if e.head == entity else e.head
                candidates.append((rel_score * scores[other], e, other))
        chosen = sorted(candidates, key=lambda c: (-c[0], c[1].head, c[1].relation, c[1].tail))
        step, beam = [], []
        for score, e, other in chosen:
            if len(step) == width:
                break
            if any(t.head == e.head and t.relation == e.relation and t.tail == e.tail
                   for t in step):
                continue
            step.append(Triple(e.head, e.relation, e.tail, graph.text[e.head], graph.text[e.tail],
                               d, float(score), e.evidence))
            if other not in beam:
                beam.append(other)
        seen.update(beam)
        kept.extend(step)
        result.stopped_at = d
        if not step or scorer.enough(question, kept):
            break
    result.triples = kept
    result.llm_calls = getattr(scorer, "llm_calls", 0)
    result.failures = getattr(scorer, "failures", 0)
    return result
