"""Entity (TAGME) KG: link probability, gazetteer, same-document links, both linkers."""
from __future__ import annotations

import json

import pytest

from kgp_kedro.graphs import (Mention, OfflineEntityLinker, TagMeEntityLinker,
                              build_entity_graph, make_linker, normalise_entity)
from kgp_kedro.graphs.entity_graph import collection_entities
from tests.conftest import HOTPOT

PASSAGES = [
    "Alf Clausen wrote for The Simpsons.",   # doc 0 "Alf Clausen"
    "He was born in Minnesota.",             # doc 0
    "The Simpsons aired on Fox.",            # doc 1 "The Simpsons (TV series)"
    "May was a busy month.",                 # doc 2 "Calendar"
    "In may the fox hunts.",                 # doc 2
]
DOC_INDEX = [0, 0, 1, 2, 2]
TITLES = ["Alf Clausen", "The Simpsons (TV series)", "Calendar"]
MENTIONS = [
    [Mention("The Simpsons", "simpsons")],
    [Mention("Minnesota", "minnesota")],
    [Mention("The Simpsons", "simpsons"), Mention("Fox", "fox")],
    [Mention("May", "may")],
    [],
]


def _pairs(edges):
    return {(int(s), int(d)) for s, d in zip(edges.src, edges.dst)}


def test_link_probability_is_measured_in_the_collection():
    kept = collection_entities(PASSAGES, TITLES, MENTIONS, prior_threshold=0.0)
    # 'fox' recognised in 1 of the 2 passages whose words contain it; 'may' likewise
    assert kept[2]["fox"] == pytest.approx(0.5) and kept[3]["may"] == pytest.approx(0.5)
    # gazetteer: the titles 'alf clausen' and 'simpsons' (suffix dropped) are found in the text
    assert kept[0] == {"alf clausen": 1.0, "simpsons": 1.0}
    strict = collection_entities(PASSAGES, TITLES, MENTIONS, prior_threshold=0.8)
    assert "fox" not in strict[2] and "may" not in strict[3]


def test_passages_sharing_an_entity_or_a_document_are_joined():
    edges = build_entity_graph(PASSAGES, DOC_INDEX, TITLES, MENTIONS, prior_threshold=0.8)
    # simpsons: 0-2; same document: 0-1, 3-4
    assert _pairs(edges) == {(0, 1), (0, 2), (3, 4)}
    loose = build_entity_graph(PASSAGES, DOC_INDEX, TITLES, MENTIONS, prior_threshold=0.0)
    assert (2, 3) not in _pairs(loose) and (2, 4) not in _pairs(loose)
    assert (3, 4) in _pairs(loose)
    alone = build_entity_graph(PASSAGES, DOC_INDEX, TITLES, MENTIONS, prior_threshold=0.8,
                               same_document=False)
    assert _pairs(alone) == {(0, 2)}


def test_linker_scores_are_used_as_given():
    scored = [[Mention("Fox", "Fox Broadcasting Company", 0.9)], [],
              [Mention("Fox", "Fox Broadcasting Company", 0.3)], [], []]
    kept = collection_entities(PASSAGES, ["x", "y", "z"], scored, prior_threshold=0.5)
    assert kept[0] == {"Fox Broadcasting Company": 0.9} and kept[2] == {}


def test_normalise_entity():
    assert normalise_entity("The Simpsons's") == "simpsons"
    assert normalise_entity("The") == "the"
    assert normalise_entity("  New   York ") == "new york"


def test_offline_linker_finds_named_entities_in_real_passages():
    record = json.loads(HOTPOT.read_text())[0]
    sentences = [s.strip() for _, ss in record["context"] for s in ss][:20]
    mentions = OfflineEntityLinker().annotate(sentences)
    assert len(mentions) == len(sentences)
    assert sum(len(m) for m in mentions) >= 10
    found = {m.entity for ms in mentions for m in ms}
    assert all(m.score is None for ms in mentions for m in ms)
    assert any(normalise_entity(w) in found for w in " ".join(sentences).split() if w.istitle())


class _FakeAnnotation:
    def __init__(self, mention, title, rho):
        self.mention, self.entity_title, self.score = mention, title, rho


class _FakeResponse:
    def __init__(self, annotations):
        self._annotations = annotations

    def get_annotations(self, min_rho):
        return [a for a in self._annotations if a.score > min_rho]


def test_tagme_linker_reads_the_api_answer(monkeypatch):
    """The TagMe web API cannot be reached here: a double stands in for the HTTP call."""
    import tagme

    calls = []

    def annotate(text, gcube_token=None, lang="en"):
        calls.append((text, gcube_token, lang))
        return _FakeResponse([_FakeAnnotation("Simpsons", "The Simpsons", 0.7)])

    monkeypatch.setattr(tagme, "annotate", annotate)
    linker = make_linker("tagme", token="secret")
    assert isinstance(linker, TagMeEntityLinker)
    result = linker.annotate(["Alf Clausen wrote for The Simpsons."])
    assert result == [[Mention("Simpsons", "The Simpsons", 0.7)]]
    assert calls == [("Alf Clausen wrote for The Simpsons.", "secret", "en")]


def test_tagme_linker_needs_a_token(monkeypatch):
    monkeypatch.delenv("TAGME_TOKEN", raising=False)
    with pytest.raises(ValueError, match="TAGME_TOKEN"):
        make_linker("tagme")
    with pytest.raises(ValueError, match="unknown entity linker 'wat'"):
        make_linker("wat")
