"""The interleaving of rankings (:mod:`kgp_kedro.retrievers.interleave`), by hand on tiny
rankings, and the ask env's ``kgp_bm25`` block validated as written."""
from __future__ import annotations

import pytest

from kgp_kedro.config.base import ParameterError
from kgp_kedro.retrievers.base import Visit
from kgp_kedro.retrievers.interleave import interleave, parse_members


def _visits(*ids: str) -> list[Visit]:
    return [Visit(p, (p,), 0, 1.0 / n) for n, p in enumerate(ids, start=1)]


def test_the_members_take_turns_and_a_passage_is_taken_once():
    walk = _visits("a", "b", "c", "d")
    bm25 = _visits("b", "e", "a", "f", "g")
    out = interleave([walk, bm25], budget=10)
    # a (walk 1st), b (bm25 1st), then walk's b is taken: e (bm25 2nd), c, (a taken), d, f, g
    assert [v.passage_id for v in out] == ["a", "b", "e", "c", "d", "f", "g"]
    # each passage keeps what the member that placed it gave it
    assert out[1] == bm25[0] and out[3] == walk[2]
    assert [v.passage_id for v in interleave([walk, bm25], budget=3)] == ["a", "b", "e"]
    assert interleave([[], bm25], budget=2) == bm25[:2]


def test_a_member_block_is_validated_as_its_own_method():
    members = parse_members({"kgp": {"method": "entity_walk", "routing": "rules",
                                     "table_subjects": True}, "bm25": {"method": "bm25"}},
                            "retrieve.methods.kgp_bm25")
    assert [name for name, *_ in members] == ["kgp", "bm25"]
    with pytest.raises(ParameterError, match="retrieve.methods.kgp_bm25.members.bm25"):
        parse_members({"bm25": {"method": "bm25", "k1": "high"}}, "retrieve.methods.kgp_bm25")
