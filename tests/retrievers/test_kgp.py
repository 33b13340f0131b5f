"""KGP (§4): TF-IDF seeds, then Algorithm 1 over the collection's KG with a traversal agent."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kgp_kedro.config.base import ParameterError
from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs import Edges, Graph, Nodes
from kgp_kedro.graphs.build import GraphTables, build_variant
from kgp_kedro.graphs.builders.tfidf import TfidfBuilder
from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from kgp_kedro.reading.reader import ranked_contexts
from kgp_kedro.retrievers import Requirements, Resources
from kgp_kedro.retrievers.kgp import Kgp, parse_agent
from kgp_kedro.retrievers.run import CollectionSource, run_retriever
from kgp_kedro.search.tfidf import TfidfIndex
from tests.llm.fake_openai_server import FakeOpenAIServer

TEXTS = ["Basalt is a volcanic rock.",       # p0: the seed
         "Volcanic ash covers the island.",   # p1
         "The cat sat on the mat.",           # p2
         "Ash and rock layers.",              # p3
         "Granite is not volcanic."]          # p4: joined to nothing
IDS = [f"p{i}" for i in range(5)]
QUESTION = "Which volcanic rock is basalt?"


@pytest.fixture
def collection():
    #   p0 - p1 - p3,  p0 - p2,  p0 - e1 (an entity node, never retrieved)
    nodes = Nodes(IDS + ["e1"], ["passage"] * 5 + ["entity"], TEXTS + ["Basalt"],
                  IDS + [None], ["{}"] * 5 + [json.dumps({})])
    edges = Edges.uniform(np.array([0, 0, 1, 0]), np.array([1, 2, 3, 5]), np.ones(4),
                          [""] * 4, "keyword", directed=False)
    c = Collection("c", IDS, TEXTS, ["d0", "d1", "d2", "d3", "d4"], ["a", "b", "c", "d", "e"])
    c.graph = Graph(nodes, edges)
    return c


def _kgp(budget, **options):
    return Kgp(Kgp.Params(**options), Resources(budget))


def test_tfidf_agent_walks_from_the_seed_along_passage_edges(collection):
    kgp = _kgp(4, mode="distinct", seeds=1, branching_factor=1, max_hops=2,
               agent={"kind": "tfidf"})
    visits = kgp.retrieve(QUESTION, collection)
    # seed p0; its passage neighbours p1 ('volcanic') beat p2 (nothing shared); then p1 -> p3;
    # p3's path is 2 hops past the seed: the walk stops there
    assert [v.passage_id for v in visits] == ["p0", "p1", "p3"]
    assert [v.path for v in visits] == [("p0",), ("p0", "p1"), ("p0", "p1", "p3")]
    assert [v.hop for v in visits] == [0, 1, 2]
    # branching 2, 3 slots after the seed over 2 hops: hop 1 takes ⌈3/2⌉ = 2 (p1, p2), hop 2
    # the last one (p1 -> p3)
    wider = _kgp(4, mode="distinct", seeds=1, branching_factor=2, max_hops=2,
                 agent={"kind": "tfidf"})
    assert [v.passage_id for v in wider.retrieve(QUESTION, collection)] == ["p0", "p1", "p2",
                                                                           "p3"]
    assert kgp.model_calls() == 0  # TF-IDF needs no model


def test_paper_mode_returns_reasoning_paths(collection):
    # TF-IDF to the question: p0 1.0, p4 .38 ('is', 'volcanic'), p3 .22 ('rock'), p1 .14.
    # budget 8 paths, branching 2: seeds auto = 8 // 2 = 4 (p0, p4, p3, p1); max_hops auto = 1.
    # p0 -> p1 (.13), p2 (0); p4 has no passage neighbour and stays a path of its own;
    # p3 -> p1 (its only neighbour); p1 -> p0 (.82), p3 (.11): the seeds p0, p1, p3 are also
    # second passages of other paths (§8.2's overlap)
    kgp = _kgp(8, branching_factor=2, agent={"kind": "tfidf"})
    assert kgp.params.mode == "paper" and kgp.params.seeds_for(8) == 4 and kgp.params.hops == 1
    visits = kgp.retrieve(QUESTION, collection)
    assert [v.path for v in visits] == [("p0", "p1"), ("p0", "p2"), ("p4",), ("p3", "p1"),
                                        ("p1", "p0"), ("p1", "p3")]
    assert [v.passage_id for v in visits] == ["p1", "p2", "p4", "p1", "p0", "p3"]
    assert [v.hop for v in visits] == [1, 1, 0, 1, 1, 1]
    # max_hops 2 (7 slots for the 5 paths that grew): each grows by its one passage left off
    # the path, or stops ([p0 p2]: p2's only neighbour is on the path; [p1 p3] likewise)
    deeper = _kgp(8, branching_factor=2, max_hops=2, agent={"kind": "tfidf"})
    assert [v.path for v in deeper.retrieve(QUESTION, collection)] == [
        ("p0", "p1", "p3"), ("p0", "p2"), ("p4",), ("p3", "p1", "p0"), ("p1", "p0", "p2"),
        ("p1", "p3")]


def test_random_agent_is_seeded(collection):
    runs = [[v.passage_id for v in _kgp(5, mode="distinct", seeds=1,
                                        agent={"kind": "random", "seed": 3})
             .retrieve(QUESTION, collection)] for _ in range(2)]
    assert runs[0] == runs[1] and runs[0][0] == "p0" and "e1" not in runs[0]
    assert set(runs[0]) == {"p0", "p1", "p2", "p3"}


def test_kgp_needs_a_graph_and_a_known_agent(collection):
    collection.graph = None
    with pytest.raises(ValueError, match="KGP needs the collection's KG"):
        _kgp(4).retrieve(QUESTION, collection)
    with pytest.raises(ParameterError, match="agent.kind: unknown traversal agent 'tfidff'"):
        parse_agent({"kind": "tfidff"}, "agent")
    with pytest.raises(ParameterError, match="agent"):
        parse_agent({"seed": 1}, "agent")
    # the agent block is checked with the method's key (Params alone cannot name it)
    with pytest.raises(ParameterError, match="unknown traversal agent 'tfidff'") as error:
        Kgp.check(Kgp.Params(agent={"kind": "tfidff"}), "retrieve.methods.kgp_x")
    assert error.value.key == "retrieve.methods.kgp_x.agent.kind"
    with pytest.raises(ValueError, match="mode"):
        Kgp.Params(mode="fifo")
    with pytest.raises(ValueError, match="seeds"):
        Kgp.Params(seeds="10")


def test_requirements_follow_the_agent():
    assert Kgp.requirements(Kgp.Params()) == Requirements(graph=True)
    assert Kgp.requirements(Kgp.Params(agent={"kind": "encoder"})) == \
        Requirements(graph=True, embeddings=True)
    assert Kgp.requirements(Kgp.Params(agent={"kind": "chat"})) == \
        Requirements(graph=True, llm=True)
    # the generator calls no LLM; asked, it runs on the QA questions only, as the LLM does
    generator = {"kind": "generator", "model": "trained:t5"}
    assert Kgp.requirements(Kgp.Params(agent=generator)) == \
        Requirements(graph=True, trained=("t5",))
    assert not Kgp.requirements(Kgp.Params(agent=generator)).on_qa_questions
    asked = Kgp.requirements(Kgp.Params(agent={**generator, "questions": "qa"}))
    assert asked == Requirements(graph=True, trained=("t5",), qa_questions_only=True)
    assert asked.on_qa_questions and not asked.llm
    assert Kgp.requirements(Kgp.Params(agent={"kind": "chat"})).on_qa_questions


@pytest.fixture(scope="module")
def hotpot_kg(hotpot_passages):
    """The bundled HotpotQA collections (8 questions, 4 negative documents each) with their
    TF-IDF KG (10 keywords a document)."""
    questions, passages = hotpot_passages
    nodes, edges = build_variant(passages, TfidfBuilder(TfidfBuilder.Params()),
                                 [("n_kw=10", TfidfBuilder.Params(n_kw=10))], "tfidf")
    return questions, passages, GraphTables(nodes, edges)


def _run(method, questions, passages, tables, llm=None, budget=30):
    spec = parse_method(method.get("name", "kgp"), method, "retrieve.methods.kgp")
    retriever = spec.retriever(spec.params, Resources(budget, llm=llm))
    return run_retriever(retriever, questions, CollectionSource(passages, tables, "n_kw=10"),
                         "kgp"), retriever


def test_paper_mode_gives_30_paths_of_two_passages_on_bundled_collections(hotpot_kg):
    questions, passages, tables = hotpot_kg
    table, _ = _run({"method": "kgp"}, questions, passages, tables)   # every default
    by_question = dict(tuple(table.groupby("question_id")))
    assert set(by_question) == set(questions["question_id"])
    overlapping = 0
    for q in questions.itertuples():
        rows = by_question[q.question_id].sort_values("rank")
        collection = Collection.from_passages(q.collection_id,
                                              passages[passages["collection_id"]
                                                       == q.collection_id])
        graph = tables.graph(q.collection_id, "n_kw=10")
        order, _ = TfidfIndex(collection.texts).search(q.question, 10)
        seeds = [collection.passage_ids[i] for i in order]
        paths = [p.split(" > ") for p in rows["path"]]
        # each of the 10 TF-IDF seeds, in rank order, with its top 3 passage neighbours (all
        # it has when it has fewer; a seed joined to nothing is a path of its own)
        degree = {s: len(set(graph.neighbors(s, kind="passage")) - {s}) for s in seeds}
        assert [p[0] for p in paths] == [s for s in seeds
                                         for _ in range(max(1, min(3, degree[s])))]
        assert all(len(p) == 2 and p[0] != p[1] and p[1] in set(graph.neighbors(p[0]))
                   for p in paths if degree[p[0]])
        assert all(p == [s] for p in paths for s in seeds if p[0] == s and not degree[s])
        assert rows["passage_id"].tolist() == [p[-1] for p in paths]
        assert rows["hop"].tolist() == [len(p) - 1 for p in paths]
        assert rows["rank"].tolist() == list(range(len(rows)))
        if all(d >= 3 for d in degree.values()):
            assert len(rows) == 30 and (rows["hop"] == 1).all()
        # overlap: a second passage is another path's seed, or ends several paths
        seconds = [p[1] for p in paths if len(p) == 2]
        overlapping += len(seconds) > len(set(seconds)) or bool(set(seconds) & set(seeds))
    # 7 of the 8 questions: 30 paths of 2 passages; the 8th has a seed with no neighbour
    assert (table.groupby("question_id").size() == 30).sum() >= 7
    assert overlapping == len(questions)


def test_a_numbered_prompt_of_paths_lists_their_passages_once_seeds_included(hotpot_kg):
    questions, passages, tables = hotpot_kg
    table, _ = _run({"method": "kgp"}, questions.head(1), passages, tables)
    texts = dict(zip(passages["passage_id"], passages["text"]))
    numbered = ranked_contexts(table, texts, "numbered")
    in_order = list(dict.fromkeys(p for path in table.sort_values("rank")["path"]
                                  for p in path.split(" > ")))
    assert [ids for ids, _ in numbered] == [(p,) for p in in_order]
    assert len(in_order) < 2 * len(table)
    assert in_order[0] == table["path"].iloc[0].split(" > ")[0]   # the first seed leads
    paths = ranked_contexts(table, texts, "paths")
    assert len(paths) == len(table) == 30
    first = table.sort_values("rank").iloc[0]
    steps = tuple(first.path.split(" > "))
    assert steps[-1] == first.passage_id
    assert paths[0] == (steps, "\n".join(texts[p] for p in steps))
    # a distinct-mode table: the numbered contexts are its passages in rank order, as before
    distinct, _ = _run({"method": "kgp", "mode": "distinct"}, questions.head(1), passages,
                       tables)
    assert [ids for ids, _ in ranked_contexts(distinct, texts, "numbered")] == \
        [(p,) for p in distinct.sort_values("rank")["passage_id"]]


def test_kgp_chat_whose_llm_calls_all_fail_still_writes_its_rows(hotpot_kg):
    """Every LLM call fails (HTTP 500, no retry): the run does not stop; the chat agent
    ranks each step by the question instead, and the method's table has its 30 paths per
    question, as the TF-IDF agent's, and the failed calls counted."""
    questions, passages, tables = hotpot_kg
    asked = questions.head(2)
    with FakeOpenAIServer(failures=[500] * 100) as server:
        llm = LLMClient(OpenAIBackend("m", base_url=server.base_url, api_key="k",
                                      max_retries=0), None)
        table, retriever = _run({"method": "kgp", "agent": {"kind": "chat"}}, asked, passages,
                                tables, llm=llm)
    assert len(server.requests) == retriever.agent.failures == 20  # 10 seeds a question
    tfidf, _ = _run({"method": "kgp"}, asked, passages, tables)
    assert table["path"].tolist() == tfidf["path"].tolist()
    assert (table.groupby("question_id").size() == 30).all()
    assert (table["calls"] == 10).all()  # LLM requests per question (20 for the batch of 2)
