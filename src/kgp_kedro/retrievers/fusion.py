"""Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) of other methods' rankings:
each passage scores ``sum 1 / (k + rank)`` over the member methods that ranked it (rank from 1),
``k`` 60 as in the paper; the best ``budget`` passages in that order. A passage keeps the path
and hop of the member that ranked it best (the first member listed on a tie).

Its members are whole ``retrieve.methods`` blocks under ``members`` (name -> block), each
validated as its own method; the fusion requires what any member requires and counts every
member's model calls. The ask env fuses the entity walk with BM25 (``kgp_bm25``): on the
real-document dev set its top 4 held the gold evidence of as many questions as the walk's
top 8 (docs/ask.md)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import Field

from kgp_kedro.config.base import Params, PosInt, parse_named
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.retrievers.base import RETRIEVERS, Requirements, Resources, Retriever, Visit
from kgp_kedro.search.ranking import ranked


def parse_members(raw: dict[str, Any], key: str) -> list[tuple[str, type[Retriever], Params]]:
    """Each member's name, class and validated options (a ParameterError naming
    ``key.members.<name>`` for a bad block)."""
    out = []
    for name, block in raw.items():
        member_key = f"{key}.members.{name}"
        cls, options = parse_named(RETRIEVERS, block, member_key, "method")
        cls.check(options, member_key)
        out.append((name, cls, options))
    return out


def fuse(rankings: Sequence[Sequence[Visit]], k: int, budget: int) -> list[Visit]:
    """The best ``budget`` passages of ``rankings`` by reciprocal rank (module docstring),
    each with its fused score and the path of its best-ranked visit."""
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, Visit]] = {}
    for visits in rankings:
        for rank, visit in enumerate(visits, start=1):
            p = visit.passage_id
            scores[p] = scores.get(p, 0.0) + 1.0 / (k + rank)
            if p not in best or rank < best[p][0]:
                best[p] = (rank, visit)
    ids = list(scores)
    order = ranked(np.array([scores[p] for p in ids]))[:budget]
    return [Visit(ids[i], best[ids[i]][1].path, best[ids[i]][1].hop, scores[ids[i]])
            for i in order]


@RETRIEVERS.register("fusion")
class Fusion(Retriever):
    """Reciprocal rank fusion of its member methods (module docstring)."""

    class Params(Params):
        # name -> a retrieve.methods block ({method: bm25}, {method: entity_walk, ...})
        members: dict[str, dict[str, Any]] = Field(min_length=2)
        k: PosInt = 60   # Cormack et al. (2009)

    @classmethod
    def check(cls, params: Params, key: str) -> None:
        parse_members(params.members, key)

    @classmethod
    def requirements(cls, params: Params) -> Requirements:
        out = Requirements()
        for _, member, options in parse_members(params.members, "members"):
            out = out | member.requirements(options)
        return out

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, resources)
        self.members = [member(options, resources)
                        for _, member, options in parse_members(params.members, "members")]

    @property
    def batch_size(self) -> int:
        return max(m.batch_size for m in self.members)

    def model_calls(self) -> int:
        return sum(m.model_calls() for m in self.members)

    def prepare(self, collections: Sequence[Collection]) -> None:
        for member in self.members:
            member.prepare(collections)

    def search(self, question: str, collection: Collection) -> list[Visit]:
        return self.retrieve_batch([question], [collection])[0]

    def retrieve_batch(self, questions: Sequence[str],
                       collections: Sequence[Collection]) -> list[list[Visit]]:
        found, charged = [], [0] * len(questions)
        for member in self.members:
            found.append(member.retrieve_batch(questions, collections))
            charged = [a + b for a, b in zip(charged, member.batch_calls)]
        self.batch_calls = charged
        return [fuse([visits[i] for visits in found], self.params.k, self.budget)
                for i in range(len(questions))]
