"""Facts in the one graph model: the entity–document graph (HOLMES §4.2.1, a bipartite graph of
documents and the named entities they mention) and the hyper-relational KG over documents.

Node ids: a document keeps its ``doc_id``; an entity is ``entity:<key>`` (``key``:
:func:`~kgp_kedro.graphs.linking.normalise_entity` of its name); a fact is
``fact:<doc_id>:<n>`` (the n-th triple of that document). Edges: ``mentions`` (document –
entity, undirected), the extracted relation (subject entity -> object entity, directed, with
qualifiers ``{"source": title, "fact": fact id}`` and the sentence as evidence), and
``subject`` / ``object`` / ``extracted_from`` (fact -> its entities and document, directed).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from kgp_kedro.facts.base import HyperTriple
from kgp_kedro.graphs.linking import normalise_entity, strip_disambiguation
from kgp_kedro.graphs.model import Edges, Graph, Nodes


def entity_key(name: str) -> str:
    return normalise_entity(name)


def entity_node(key: str) -> str:
    return f"entity:{key}"


def fact_node(doc_id: str, n: int) -> str:
    return f"fact:{doc_id}:{n}"


@dataclass
class EntityDocumentGraph:
    """Documents and the entities they mention. A document mentions its own title (its
    disambiguation suffix dropped) and every entity found in its text."""

    titles: dict[str, str]                                  # doc id -> title, in order
    entities_of: dict[str, list[str]]                       # doc id -> entity keys
    names: dict[str, str] = field(default_factory=dict)     # entity key -> a surface form

    @classmethod
    def build(cls, doc_ids: Sequence[str], titles: Sequence[str],
              mentions: Sequence[Sequence[str]]) -> "EntityDocumentGraph":
        """From each document's entity mentions (surface forms)."""
        entities_of: dict[str, list[str]] = {}
        names: dict[str, str] = {}
        for doc, title, found in zip(doc_ids, titles, mentions):
            keys: dict[str, None] = {}
            for surface in [strip_disambiguation(title), *found]:
                key = entity_key(surface)
                if key:
                    keys[key] = None
                    names.setdefault(key, surface)
            entities_of[doc] = list(keys)
        return cls(dict(zip(doc_ids, titles)), entities_of, names)

    def __post_init__(self) -> None:
        self.docs_of: dict[str, list[str]] = {}
        for doc, keys in self.entities_of.items():
            for key in keys:
                self.docs_of.setdefault(key, []).append(doc)

    def documents(self, entity: str) -> list[str]:
        """The documents that mention ``entity`` (a name or key), in document order."""
        return list(self.docs_of.get(entity_key(entity), ()))

    def entities(self) -> list[str]:
        return list(self.docs_of)

    def graph(self) -> Graph:
        """The bipartite graph in the graph model (document and entity nodes, ``mentions``)."""
        return fact_graph(self, {})


def fact_graph(edg: EntityDocumentGraph,
               triples: Mapping[str, Sequence[HyperTriple]]) -> Graph:
    """The entity–document graph plus the hyper triples of the documents in ``triples``
    (doc id -> its triples): fact nodes and qualified relation edges."""
    ids: list[str] = []
    kinds: list[str] = []
    texts: list[str] = []
    attributes: list[str] = []
    position: dict[str, int] = {}

    def node(node_id: str, kind: str, text: str, attrs: dict) -> int:
        if node_id not in position:
            position[node_id] = len(ids)
            ids.append(node_id)
            kinds.append(kind)
            texts.append(text)
            attributes.append(json.dumps(attrs, ensure_ascii=False))
        return position[node_id]

    src: list[int] = []
    dst: list[int] = []
    relation: list[str] = []
    directed: list[bool] = []
    qualifiers: list[str] = []
    evidence: list[str] = []

    def edge(u: int, v: int, rel: str, is_directed: bool, quals: dict, ev: str = "") -> None:
        src.append(u)
        dst.append(v)
        relation.append(rel)
        directed.append(is_directed)
        qualifiers.append(json.dumps(quals, ensure_ascii=False))
        evidence.append(ev)

    for doc, title in edg.titles.items():
        d = node(doc, "document", title, {"title": title})
        for key in edg.entities_of.get(doc, ()):
            e = node(entity_node(key), "entity", edg.names.get(key, key), {})
            edge(d, e, "mentions", False, {})
    for doc, doc_triples in triples.items():
        d = node(doc, "document", edg.titles.get(doc, doc), {"title": edg.titles.get(doc, doc)})
        for n, t in enumerate(doc_triples):
            fid = fact_node(doc, n)
            f = node(fid, "fact", t.verbalise(), t.to_json())
            s = node(entity_node(entity_key(t.subject)), "entity", t.subject, {})
            o = node(entity_node(entity_key(t.object)), "entity", t.object, {})
            edge(s, o, t.relation, True, {**t.qualifiers, "fact": fid}, t.evidence)
            edge(f, s, "subject", True, {})
            edge(f, o, "object", True, {})
            edge(f, d, "extracted_from", True, dict(t.qualifiers))
    nodes = Nodes(ids, kinds, texts, [None] * len(ids), attributes)
    edges = Edges(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
                  np.ones(len(src)), evidence, relation, directed, qualifiers)
    return Graph(nodes, edges)
