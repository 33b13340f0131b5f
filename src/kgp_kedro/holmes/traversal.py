"""Level-order traversal of the entity–document graph (HOLMES §4.2.1): from the question's
entities, level by level, the documents that mention the current entities are read (their
triples extracted), the hyper triples with a current entity as subject or object are kept, and
their counterpart entities make the next level; ``levels`` levels (paper k = 4)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from kgp_kedro.facts import EntityDocumentGraph, HyperTriple, entity_key


@dataclass(frozen=True)
class Reached:
    """A kept hyper triple: the level it was reached at (1: from a question entity), the
    document it came from, its position in that document's triples, and the entity it was
    reached through."""

    level: int
    doc_id: str
    index: int
    triple: HyperTriple
    via: str


def mentions(entity: str, argument: str) -> bool:
    """Whether a triple's argument names ``entity``: the same key, or one's words a
    contiguous run of the other's ('Mikael Åkerfeldt' in 'Lars Mikael Åkerfeldt'; a one-word
    argument must equal the entity, so 'Mikael' alone does not match)."""
    e, a = entity_key(entity).split(), entity_key(argument).split()
    if not e or not a:
        return False
    if e == a:
        return True
    short, long_ = (e, a) if len(e) < len(a) else (a, e)
    if len(short) < 2 and short is a:
        return False
    n = len(short)
    return any(long_[i:i + n] == short for i in range(len(long_) - n + 1))


def level_order(graph: EntityDocumentGraph, seeds: Sequence[str],
                facts_of: Callable[[list[str]], Mapping[str, Sequence[HyperTriple]]],
                levels: int) -> tuple[list[Reached], list[str]]:
    """``(kept triples in traversal order, documents read in order)``. ``facts_of(doc_ids)``
    gives the triples of documents not read before (called once per level, so an extractor
    only reads the documents the traversal reaches)."""
    facts: dict[str, Sequence[HyperTriple]] = {}
    read: list[str] = []
    frontier = list(dict.fromkeys(s for s in seeds if entity_key(s)))
    seen = {entity_key(s) for s in frontier}
    kept: list[Reached] = []
    taken: set[tuple[str, int]] = set()
    for level in range(1, levels + 1):
        if not frontier:
            break
        docs = [d for e in frontier for d in graph.documents(e)]
        new = [d for d in dict.fromkeys(docs) if d not in facts]
        if new:
            facts.update(facts_of(new))
            read.extend(new)
        following: list[str] = []
        for entity in frontier:
            for doc in graph.documents(entity):
                for i, t in enumerate(facts.get(doc, ())):
                    if (doc, i) in taken:
                        continue
                    hit_s, hit_o = mentions(entity, t.subject), mentions(entity, t.object)
                    if not (hit_s or hit_o):
                        continue
                    taken.add((doc, i))
                    kept.append(Reached(level, doc, i, t, entity))
                    other = t.object if hit_s else t.subject
                    if entity_key(other) and entity_key(other) not in seen:
                        seen.add(entity_key(other))
                        following.append(other)
        frontier = following
    return kept, read
