"""Pruning the hyper-relational KG with the schema (HOLMES §4.2.2, Eqs. 1-2): a hyper triple's
score is the highest cosine similarity of its relation's embedding to the relation of a schema
triple whose entity types match its own; the ``p`` highest-scoring triples are kept, in score
order (ties keep the traversal order)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from kgp_kedro.facts import HyperTriple
from kgp_kedro.holmes.question import SchemaTriple
from kgp_kedro.holmes.types import types_match
from kgp_kedro.search.ranking import ranked

TYPE_MATCH = ("strict", "prefer", "off")


def type_compatible(triple: HyperTriple, schema: SchemaTriple) -> bool:
    """The triple's subject and object types agree with the schema triple's, in either
    orientation (a schema read off a question may name a relation from the other side:
    'the road located in X' against '(X, is located around, road)')."""
    s, o = triple.subject_type, triple.object_type
    return ((types_match(s, schema.subject_type) and types_match(o, schema.object_type))
            or (types_match(o, schema.subject_type) and types_match(s, schema.object_type)))


def relation_scores(triples: Sequence[HyperTriple], schema: Sequence[SchemaTriple],
                    embed: Callable[[list[str]], np.ndarray],
                    type_match: str = "strict") -> np.ndarray:
    """Eq. 2 for each triple: max over the schema triples it may be compared with (``strict``
    and ``prefer``: those whose types match; ``off``: all) of Eq. 1, the cosine similarity of
    the relation embeddings (``embed`` returns L2-normalised rows). A triple no schema triple
    matches scores ``-inf`` under ``strict`` (it is never kept) and its unmatched score minus 2
    (below every matched one) under ``prefer``."""
    if type_match not in TYPE_MATCH:
        raise ValueError(f"type_match must be one of {TYPE_MATCH}, got {type_match!r}")
    n = len(triples)
    if not n or not len(schema):
        return np.full(n, -np.inf)
    relations = list(dict.fromkeys([t.relation for t in triples]
                                   + [s.relation for s in schema]))
    vectors = embed(relations)
    index = {r: i for i, r in enumerate(relations)}
    sims = (vectors[[index[t.relation] for t in triples]]
            @ vectors[[index[s.relation] for s in schema]].T)
    if type_match == "off":
        return sims.max(axis=1)
    mask = np.array([[type_compatible(t, s) for s in schema] for t in triples])
    matched = np.where(mask, sims, -np.inf).max(axis=1)
    if type_match == "strict":
        return matched
    return np.where(np.isfinite(matched), matched, sims.max(axis=1) - 2.0)


def prune(triples: Sequence[HyperTriple], scores: np.ndarray, p: int
          ) -> list[tuple[int, float]]:
    """``(index, score)`` of the ``p`` highest finite scores, best first, compared at
    :data:`~kgp_kedro.search.ranking.RANK_DIGITS` digits (ties to the earlier triple), so a
    last-bit difference of the encoder's floats on another CPU does not reorder them."""
    order = ranked(np.asarray(scores))
    return [(int(i), float(scores[i])) for i in order if np.isfinite(scores[i])][:p]
