"""Structural questions (paper §4): the rule router on hand-written questions, the LLM
router's reply parsing, and KGP answering a structural question from the page / table nodes
of a KG built over generated files, a content question by Algorithm 1."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from kgp_kedro.pipelines.parameter_tree import parse_variant
from kgp_kedro.corpus import split_passages
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.corpus.sources import read_source
from kgp_kedro.graphs.build import build_variant
from kgp_kedro.graphs.model import Graph
from kgp_kedro.retrievers.base import Resources
from kgp_kedro.retrievers.kgp import Kgp
from kgp_kedro.prompts.structural import ROUTER_EXAMPLES, router_messages
from kgp_kedro.retrievers.structural import (StructuralQuery, classify_llm, classify_rules,
                                             parse_router_reply)
from tests.corpus.files import make_docx, make_pdf


@pytest.mark.parametrize("question, key", [
    ("What is on page 3 of report.pdf?", StructuralQuery(page=3)),
    ("In Table 2, which station has the highest average flow rate?", StructuralQuery(table=2)),
    ("Based on Table on Page 4, how many people belong to the grade 'Fellow'?",
     StructuralQuery(page=4, table=0)),
    ("What is the difference between the first page and the last page?",
     StructuralQuery(page=1)),
    ("Summarise the second table of notes.docx", StructuralQuery(table=2)),
    ('What does the section "Early life" say about his school?',
     StructuralQuery(heading="Early life")),
    ("Which table tennis player won the 1995 world championship?", None),
    ("Who wrote the front page story of The Times in 1912?", None),
    ("In what year was the creator of the current arrangement of Simpson's Theme born?", None),
])
def test_rule_router_on_hand_written_questions(question, key):
    assert classify_rules(question) == key


def test_llm_router_reply_parsing():
    assert parse_router_reply('Sure: {"structural": true, "page": 2, "table": null, '
                              '"heading": null}') == StructuralQuery(page=2)
    assert parse_router_reply('{"structural": false, "page": 2}') is None
    assert parse_router_reply("I think it is structural") is None
    assert parse_router_reply('{"structural": true, "page": "two"}') is None
    # a small model may go on after its object, or quote its numbers and booleans
    assert parse_router_reply('{"structural": true, "page": null, "table": 3, "heading": null}'
                              '\nQuestion: x\n{"structural": false}') == StructuralQuery(table=3)
    assert parse_router_reply('{"structural": "true", "page": "4", "table": 0.0}') == \
        StructuralQuery(page=4, table=0)
    assert parse_router_reply('{"structural": "no", "page": 4}') is None
    assert parse_router_reply('{"structural": true, "heading": " Early life "}') == \
        StructuralQuery(heading="Early life")
    assert parse_router_reply('{"structural": true, "page": null, "heading": ""}') is None
    # a heading the question does not name is dropped (the 0.5B router invents them)
    invented = '{"structural": true, "page": null, "table": 2, "heading": "Empress Wang\'s spouse"}'
    assert parse_router_reply(invented, "What does Table 2 of Wang.pdf give as the date?") == \
        StructuralQuery(table=2)
    named = '{"structural": true, "heading": "early life"}'
    assert parse_router_reply(named, 'What does the section "Early life" say?') == \
        StructuralQuery(heading="early life")
    assert parse_router_reply('{"structural": true, "heading": "Awards"}', "Summarise it.") is None
    assert parse_router_reply('{"structural": true, "page": 2.5}') is None
    assert parse_router_reply("[1, 2]") is None


def test_llm_router_prompt_holds_its_examples_as_turns_and_the_question_last():
    messages = router_messages("What is on page 3 of x.pdf?")
    assert messages[0]["role"] == "system" and "STRUCTURAL" in messages[0]["content"]
    turns = messages[1:-1]
    assert [m["role"] for m in turns] == ["user", "assistant"] * len(ROUTER_EXAMPLES)
    # every example's reply is one the parser reads back as the example's keys
    for (question, reply), user, assistant in zip(ROUTER_EXAMPLES, turns[::2], turns[1::2]):
        assert user["content"] == f"Question: {question}"
        parsed = parse_router_reply(assistant["content"])
        assert (parsed is not None) == reply["structural"]
        assert parsed is None or (parsed.page, parsed.table) == (reply["page"], reply["table"])
    assert messages[-1] == {"role": "user", "content": "Question: What is on page 3 of x.pdf?"}


def test_llm_router_with_the_embedded_model(local_llm):
    """The packaged reader model routes hand-written questions (none of the benchmark's
    templates, none of the prompt's examples): a page, a numbered table, a content question."""
    keys = classify_llm(["Summarise page 5 of minutes.pdf.",
                         "What is the total in Table 4 of accounts.docx?",
                         "Where was the author of Dracula born?"], local_llm)
    assert keys[0] is not None and keys[0].page == 5
    assert keys[1] is not None and keys[1].table == 4
    assert keys[2] is None


@pytest.fixture(scope="module")
def graph_and_passages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("docs")
    make_pdf(folder / "a.pdf")
    make_docx(folder / "b.docx")
    (folder / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "x?"}) + "\n")
    _, documents = read_source("documents", folder, "d")
    passages = split_passages(pd.DataFrame(documents))
    spec = parse_variant("tfidf", {"builder": "tfidf"}, "kg.variants.tfidf")
    nodes, edges = build_variant(passages, spec.make_builder(), spec.settings, "tfidf")
    setting = edges["setting"].iloc[0]
    graph = Graph.from_tables(nodes, edges[edges["setting"] == setting])
    return graph, passages


def test_structural_layer_pages_tables_and_reading_order(graph_and_passages):
    graph, passages = graph_and_passages
    pdf = passages[passages["doc_id"] == "d/a.pdf"]
    assert graph.kind("d/a.pdf") == "document"
    assert graph.neighbors("d/a.pdf", relation="contains") == ["d/a.pdf@page1", "d/a.pdf@page2"]
    assert graph.neighbors("d/a.pdf@page1", relation="next") == ["d/a.pdf@page2"]
    on_page2 = set(pdf.loc[pdf["page"] == 2, "passage_id"])
    assert set(graph.neighbors("d/a.pdf@page2", relation="contains")) == on_page2
    table = pdf.loc[pdf["kind"] == "table", "passage_id"].item()
    assert graph.kind(table) == "table"
    # no edge leads from a passage to a structural node: Algorithm 1 walks passages only
    for pid in pdf["passage_id"]:
        assert not [n for n in graph.neighbors(pid) if graph.kind(n) in ("page", "document")]
    # the docx has no laid-out pages but hard page breaks: its blocks are numbered by them
    assert graph.neighbors("d/b.docx", relation="contains") == ["d/b.docx@page1",
                                                                "d/b.docx@page2"]


def _kgp(routing="rules"):
    return Kgp(Kgp.Params(routing=routing), Resources(budget=30))


def test_kgp_answers_structural_questions_from_structural_nodes(graph_and_passages):
    graph, passages = graph_and_passages
    collection = Collection.from_passages("d/all", passages, graph=graph)
    pdf = passages[passages["doc_id"] == "d/a.pdf"]
    table = pdf.loc[pdf["kind"] == "table", "passage_id"].item()
    visits = _kgp().retrieve("According to the table on page 2 of a.pdf, when was he born?",
                             collection)
    assert [(v.passage_id, v.path) for v in visits] == [(table, (table,))]
    page1 = _kgp().retrieve("What is on page 1 of a.pdf?", collection)
    assert [v.passage_id for v in page1] == pdf.loc[pdf["page"] == 1, "passage_id"].tolist()
    docx = _kgp().retrieve("What does Table 1 of b.docx list?", collection)
    assert [v.passage_id for v in docx] == passages.loc[
        (passages["doc_id"] == "d/b.docx") & (passages["kind"] == "table"), "passage_id"].tolist()
    # a content question goes to Algorithm 1: TF-IDF seeds at hop 0, no structural node
    ids = set(passages["passage_id"])
    content = _kgp().retrieve("When was the composer born?", collection)
    assert content and all(set(v.path) <= ids for v in content)
    # routing off: the structural question is a content question too
    off = _kgp("off").retrieve("What is on page 1 of a.pdf?", collection)
    assert off and all(set(v.path) <= ids for v in off)
    # batched: the same visits as one question at a time
    questions = ["What is on page 1 of a.pdf?", "When was the composer born?"]
    assert _kgp().retrieve_batch(questions, [collection, collection]) == [
        _kgp().retrieve(q, collection) for q in questions]


def test_entity_walk_routes_structural_questions_like_kgp(graph_and_passages, tmp_path):
    """``kgp`` (the entity walk) with ``routing: rules`` (the ask env's): a structural question
    gets the same structural nodes' content as KGP's router gives, a content question the
    walk's PPR ranking over passages (the walk alone, as with routing off)."""
    from kgp_kedro.retrievers.entity_walk import EntityWalk

    graph, passages = graph_and_passages
    collection = Collection.from_passages("d/all", passages, graph=graph)

    def walk(routing):
        return EntityWalk(EntityWalk.Params(routing=routing, seeds_from="tfidf",
                                            linker={"cache_dir": str(tmp_path)}),
                          Resources(budget=30))

    for question in ["What is on page 1 of a.pdf?", "What does Table 1 of b.docx list?",
                     "According to the table on page 2 of a.pdf, when was he born?"]:
        assert walk("rules").retrieve(question, collection) == _kgp().retrieve(question,
                                                                               collection)
    content = "When was the composer born?"
    walked = walk("rules").retrieve(content, collection)
    assert walked == walk("off").retrieve(content, collection)
    assert walked and all(v.hop == 0 and v.path == (v.passage_id,) for v in walked)
    # routing off: the structural question is walked too
    assert walk("off").retrieve("What is on page 1 of a.pdf?", collection) != \
        _kgp().retrieve("What is on page 1 of a.pdf?", collection)
    # batched: the same visits as one question at a time
    questions = ["What is on page 1 of a.pdf?", content]
    assert walk("rules").retrieve_batch(questions, [collection, collection]) == [
        walk("rules").retrieve(q, collection) for q in questions]


def test_llm_router_through_the_project_llm_client(tmp_path, monkeypatch,
                                                   graph_and_passages):
    """``routing: llm``: the question goes to the LLM (an OpenAI-compatible server here, the one
    test double: a paid API), its JSON reply routes it; a content reply sends it to
    Algorithm 1."""
    from kgp_kedro.llm import make_llm
    from tests.llm.fake_openai_server import FakeOpenAIServer

    def reply(prompt: str) -> str:
        structural = "page 1" in prompt
        return json.dumps({"structural": structural, "page": 1 if structural else None,
                           "table": None, "heading": None})

    graph, passages = graph_and_passages
    collection = Collection.from_passages("d/all", passages, graph=graph)
    monkeypatch.setenv("KGP_TEST_KEY", "secret")
    with FakeOpenAIServer(reply=reply) as server:
        llm = make_llm({"backend": "openai", "cache": str(tmp_path / "c.sqlite"),
                        "openai": {"model": "m", "base_url": server.base_url,
                                   "api_key_env": "KGP_TEST_KEY"}})
        kgp = Kgp(Kgp.Params(routing="llm"), Resources(budget=30, llm=llm))
        assert Kgp.requirements(Kgp.Params(routing="llm")).llm
        page1 = kgp.retrieve("What is on page 1 of a.pdf?", collection)
        content = kgp.retrieve("When was the composer born?", collection)
    assert "Question: What is on page 1 of a.pdf?" in server.requests[0]["messages"][-1]["content"]
    pdf = passages[passages["doc_id"] == "d/a.pdf"]
    assert [v.passage_id for v in page1] == pdf.loc[pdf["page"] == 1, "passage_id"].tolist()
    assert content and all("@page" not in v.path[0] for v in content)
    assert kgp.model_calls() >= 2
