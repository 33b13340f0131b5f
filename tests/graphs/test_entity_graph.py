"""Entity (TAGME) KG: link probability, gazetteer, same-document links, both linkers."""
from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs import BUILDERS
from kgp_kedro.graphs.builders.entity import (EntityBuilder, build_entity_graph,
                                              collection_entities)
from kgp_kedro.graphs.linking import (Mention, OfflineEntityLinker, TagMeEntityLinker,
                                      make_linker, normalise_entity)
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
P = EntityBuilder.Params()  # the defaults: 8-token gazetteer titles, 3 evidence entities


def _pairs(edges):
    return {(int(s), int(d)) for s, d in zip(edges.src, edges.dst)}


def _entities(passages, titles, mentions, prior_threshold):
    return collection_entities(passages, titles, mentions, prior_threshold, P.max_entity_tokens)


def _graph(prior_threshold, same_document=True):
    return build_entity_graph(PASSAGES, DOC_INDEX, TITLES, MENTIONS, prior_threshold,
                              same_document, P.max_entity_tokens, P.max_evidence)


def test_link_probability_is_measured_in_the_collection():
    kept = _entities(PASSAGES, TITLES, MENTIONS, prior_threshold=0.0)
    # 'fox' recognised in 1 of the 2 passages whose words contain it; 'may' likewise
    assert kept[2]["fox"] == pytest.approx(0.5) and kept[3]["may"] == pytest.approx(0.5)
    # gazetteer: the titles 'alf clausen' and 'simpsons' (suffix dropped) are found in the text
    assert kept[0] == {"alf clausen": 1.0, "simpsons": 1.0}
    strict = _entities(PASSAGES, TITLES, MENTIONS, prior_threshold=0.8)
    assert "fox" not in strict[2] and "may" not in strict[3]


def test_passages_sharing_an_entity_or_a_document_are_joined():
    edges = _graph(0.8)
    # simpsons: 0-2; same document: 0-1, 3-4
    assert _pairs(edges) == {(0, 1), (0, 2), (3, 4)}
    assert not any(edges.directed) and set(edges.relation) == {"entity"}
    loose = _graph(0.0)
    assert (2, 3) not in _pairs(loose) and (2, 4) not in _pairs(loose)
    assert (3, 4) in _pairs(loose)
    alone = _graph(0.8, same_document=False)
    assert _pairs(alone) == {(0, 2)}


def test_linker_scores_are_used_as_given():
    scored = [[Mention("Fox", "Fox Broadcasting Company", 0.9)], [],
              [Mention("Fox", "Fox Broadcasting Company", 0.3)], [], []]
    kept = _entities(PASSAGES, ["x", "y", "z"], scored, prior_threshold=0.5)
    assert kept[0] == {"Fox Broadcasting Company": 0.9} and kept[2] == {}


def test_normalise_entity():
    assert normalise_entity("The Simpsons's") == "simpsons"
    assert normalise_entity("The") == "the"
    assert normalise_entity("  New   York ") == "new york"


def test_the_builder_reads_its_mention_table_and_builds_the_same_graph():
    """``passage_mentions_<variant>`` rows (NaN: no linker score) back into mentions."""
    assert BUILDERS.get("entity") is EntityBuilder
    ids = [f"p{i}" for i in range(5)]
    table = pd.DataFrame({
        "passage_id": ids,
        "surfaces": [[m.surface for m in ms] for ms in MENTIONS],
        "entities": [[m.entity for m in ms] for ms in MENTIONS],
        "scores": [[math.nan] * len(ms) for ms in MENTIONS]})
    collection = Collection("c", ids, PASSAGES, ["d0", "d0", "d1", "d2", "d2"],
                            [TITLES[d] for d in DOC_INDEX])
    builder = EntityBuilder(P, table)
    for threshold in (0.0, 0.8):
        graph = builder.build(collection, EntityBuilder.Params(prior_threshold=threshold))
        assert _pairs(graph.edges) == _pairs(_graph(threshold))
    assert builder.build(collection, P).neighbors("p0") == ["p1", "p2"]
    with pytest.raises(ValueError, match="passage mentions"):
        EntityBuilder(P).build(collection, P)


def test_offline_linker_finds_named_entities_in_real_passages():
    record = json.loads(HOTPOT.read_text())[0]
    sentences = [s.strip() for _, ss in record["context"] for s in ss][:20]
    linker = P.linker
    mentions = OfflineEntityLinker(linker.spacy_model, linker.labels,
                                   linker.batch_size).annotate(sentences)
    assert len(mentions) == len(sentences)
    assert sum(len(m) for m in mentions) >= 10
    found = {m.entity for ms in mentions for m in ms}
    assert all(m.score is None for ms in mentions for m in ms)
    assert any(normalise_entity(w) in found for w in " ".join(sentences).split() if w.istitle())


def test_the_builder_featurizes_real_passages_with_the_offline_linker(hotpot_passages):
    _, passages = hotpot_passages
    ps = passages.head(15)
    table = EntityBuilder(P).featurize(pd.concat([ps, ps]))  # each distinct passage once
    assert table["passage_id"].tolist() == ps["passage_id"].tolist()
    assert sum(len(e) for e in table["entities"]) >= 5
    assert all(math.isnan(s) for scores in table["scores"] for s in scores)


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
    linker = make_linker("tagme", lang=P.linker.lang, token="secret")
    assert isinstance(linker, TagMeEntityLinker)
    result = linker.annotate(["Alf Clausen wrote for The Simpsons."])
    assert result == [[Mention("Simpsons", "The Simpsons", 0.7)]]
    assert calls == [("Alf Clausen wrote for The Simpsons.", "secret", "en")]


def test_tagme_linker_needs_a_token(monkeypatch):
    monkeypatch.delenv("TAGME_TOKEN", raising=False)
    with pytest.raises(ValueError, match="TAGME_TOKEN"):
        make_linker("tagme", lang="en")
    with pytest.raises(ValueError, match="unknown entity linker 'wat'"):
        make_linker("wat")
