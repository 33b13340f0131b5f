"""Fact extractors: the offline dependency-parse extractor on hand-checked sentences and real
records, the LLM extractor (the paper's prompt) against a real OpenAI-compatible server, the
per-document cache and the graph-model view of the facts."""
import json

import pytest

from kgp_kedro.facts import (EXTRACTORS, EntityDocumentGraph, HyperTriple, extract_documents,
                             fact_graph)
from kgp_kedro.facts.extractors.llm import parse_triples
from kgp_kedro.prompts.holmes import TRIPLE_PROMPT, triple_prompt
from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from tests.llm.fake_openai_server import FakeOpenAIServer

# HOLMES A.6: the A41 document of the case study
A41 = ("The A41 is a major trunk road in England that links London and Birkenhead.")


@pytest.fixture(scope="module")
def dependency():
    return EXTRACTORS.get("dependency")()


def spo(triples):
    return [(t.subject, t.relation, t.object) for t in triples]


def test_dependency_triples_of_a_hand_checked_sentence(dependency):
    triples = dependency.extract("A41 road", A41)
    # copula with a prepositional attribute, and a relative clause whose subject is the
    # copula's subject, with coordinated objects split (one triple each)
    assert spo(triples) == [("A41", "is a major trunk road in", "England"),
                            ("A41", "links", "London"), ("A41", "links", "Birkenhead")]
    assert all(t.qualifiers == {"source": "A41 road"} and t.evidence == A41 for t in triples)
    assert triples[0].object_type == "location"


def test_passive_agent_coordination_and_pronoun_subject(dependency):
    text = ("William Rast is an American clothing line founded by Justin Timberlake and Trace "
            "Ayala. It was launched in 2006.")
    got = spo(dependency.extract("William Rast (brand)", text))
    assert ("William Rast", "founded by", "Justin Timberlake") in got
    assert ("William Rast", "founded by", "Trace Ayala") in got
    # 'It' stands for the document's title, its disambiguation suffix dropped
    assert ("William Rast", "was launched in", "2006") in got


def test_dependency_on_real_records(dependency, hotpot):
    questions, documents = hotpot
    docs = documents[documents["collection_id"] == questions.iloc[0]["collection_id"]]
    pairs = list(zip(docs["title"], docs["text"]))
    per_doc = dependency.extract_many(pairs)
    assert len(per_doc) == len(pairs)
    for (title, text), triples in zip(pairs, per_doc):
        for t in triples:
            assert t.source == title and t.evidence in text
            assert t.subject and t.relation and t.object and t.subject != t.object
    # 'Lars Mikael Åkerfeldt ... is a Swedish musician, prominently known as the lead vocalist,
    # guitarist, ...' (the supporting document of the first HotpotQA question)
    mikael = dict(pairs)["Mikael Åkerfeldt"]
    assert ("Lars Mikael Åkerfeldt", "known as", "guitarist") in spo(
        dependency.extract("Mikael Åkerfeldt", mikael))


def test_cache_serves_a_second_run(tmp_path, dependency, monkeypatch):
    docs = [("A41 road", A41)]
    first = extract_documents(dependency, docs, str(tmp_path))
    monkeypatch.setattr(type(dependency), "extract_many",
                        lambda self, d: pytest.fail("recomputed a cached document"))
    assert extract_documents(dependency, docs, str(tmp_path)) == first


def test_paper_prompt_and_parsing():
    prompt = triple_prompt("Backford Cross is a village.")
    assert prompt.startswith("Task: Comprehensively extract ALL the triples (subject, relation, "
                             "object) from below given paragraph.")
    assert prompt.endswith("Paragraph: Backford Cross is a village.\nTriples:")
    assert TRIPLE_PROMPT.count("Paragraph:") == 3
    reply = ("i. subject: A41, relation: links, object: London\n"
             "Some chatter\n"
             "ii. subject: A41, relation: passes through, object: Watford, Kings Langley\n"
             "iii. subject: A41, relation: links, object: London\n")
    assert parse_triples(reply) == [("A41", "links", "London"),
                                    ("A41", "passes through", "Watford, Kings Langley")]


def test_llm_extractor_through_an_openai_compatible_server():
    reply = "i. subject: A41, relation: is a major trunk road in, object: England"
    with FakeOpenAIServer(reply=lambda prompt: reply) as server:
        client = LLMClient(OpenAIBackend(model="m", base_url=server.base_url, api_key="k",
                                         timeout=5))
        extractor = EXTRACTORS.get("llm")(llm=client)
        triples = extractor.extract("A41 road", A41)
        sent = server.requests[0]["messages"][-1]["content"]
    assert sent == triple_prompt(A41)
    assert triples == [HyperTriple("A41", "is a major trunk road in", "England",
                                   {"source": "A41 road"})]


def test_entity_document_graph_and_fact_graph(dependency):
    edg = EntityDocumentGraph.build(["d1", "d2"], ["A41 road", "Backford Cross"],
                                    [["England", "London"], ["A41", "England"]])
    assert edg.documents("England") == ["d1", "d2"]
    assert edg.documents("A41") == ["d2"]           # d1's title is 'A41 road'
    assert edg.documents("the A41 Road") == ["d1"]  # a title is an entity of its document
    graph = fact_graph(edg, {"d1": dependency.extract("A41 road", A41)})
    assert graph.kind("fact:d1:0") == "fact"
    assert graph.neighbors("entity:a41", kind="entity") == [
        "entity:birkenhead", "entity:england", "entity:london"]
    _, edges = graph.tables("c", "holmes")
    links = edges[edges["relation"] == "links"]
    assert json.loads(links.iloc[0]["qualifiers"]) == {"source": "A41 road", "fact": "fact:d1:1"}
    assert graph.neighbors("fact:d1:0", relation="extracted_from") == ["d1"]
