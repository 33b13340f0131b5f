"""Interleaved rankings of other methods: the first passage of each member in turn, then the
second of each, and so on, a passage already taken skipped, up to ``budget`` passages (balanced
interleaving, Joachims 2003, without its coin toss: the members take turns in the order
listed). A passage keeps the path, hop and score of the member that placed it.

Its members are whole ``retrieve.methods`` blocks under ``members`` (name -> block), each
validated as its own method; the interleaving requires what any member requires and counts
every member's model calls. The ask env interleaves the entity walk with BM25 (``kgp_bm25``):
on the real-document choosing pool its 8 quotes held all the gold evidence of 69 of 90
answerable questions, the walk's 61 (docs/ask.md)."""
from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest
from typing import Any

from pydantic import Field

from kgp_kedro.config.base import Params, parse_named
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.retrievers.base import RETRIEVERS, Requirements, Resources, Retriever, Visit


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


def interleave(rankings: Sequence[Sequence[Visit]], budget: int) -> list[Visit]:
    """The members' rankings taken in turns, each passage once (module docstring)."""
    out: list[Visit] = []
    taken: set[str] = set()
    for turn in zip_longest(*rankings):
        for visit in turn:
            if visit is not None and visit.passage_id not in taken:
                taken.add(visit.passage_id)
                out.append(visit)
    return out[:budget]


@RETRIEVERS.register("interleave")
class Interleave(Retriever):
    """Interleaved rankings of its member methods (module docstring)."""

    class Params(Params):
        # name -> a retrieve.methods block ({method: bm25}, {method: entity_walk, ...}), in
        # the order they take turns
        members: dict[str, dict[str, Any]] = Field(min_length=2)

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
        return [interleave([visits[i] for visits in found], self.budget)
                for i in range(len(questions))]
