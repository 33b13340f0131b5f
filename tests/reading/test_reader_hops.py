"""``read.hops: typed`` on real bundled records (through a local OpenAI-compatible test
server): a question is broken into sub-questions in one call, shown the MuSiQue train file's
own decompositions; where the last one asks for the question's kind of answer, each
sub-question but the last is asked of the question's documents, its short answer put in for
``#k``, and the last one is the answering call. Any question that is no chain, a chain asking
for another kind of answer, and every choice question, is read whole."""
from __future__ import annotations

import json

import pytest

from kgp_kedro.prompts.hops import DECOMPOSE_INSTRUCTION
from kgp_kedro.reading import read_answers
from kgp_kedro.reading.hops import (answer_kind, decomposition_examples, natural_hop,
                                    parse_chain, train_decompositions, with_answers)
from kgp_kedro.reading.demonstrations import train_questions
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.reading.test_demonstrations import TRAIN
from tests.reading.test_reader_contexts import _client, _two_documents


@pytest.mark.parametrize("reply, hops", [
    ("1. Who founded it?\n2. When was #1 born?", ["Who founded it?", "When was #1 born?"]),
    # words before the list are skipped; the list ends where its numbering breaks
    ("Sure:\n1) Who founded it?\n2) Where did #1 die?\n3) When was #2 built?\n\n5. Ignore",
     ["Who founded it?", "Where did #1 die?", "When was #2 built?"]),
    # a later hop may name any earlier answers
    ("1. Where was X born?\n2. Which country is #1 in?\n3. Who ruled #2 when #1 was built?",
     ["Where was X born?", "Which country is #1 in?", "Who ruled #2 when #1 was built?"]),
    # a later hop that names no earlier answer starts a second chain: not read by hops
    ("1. Where was X born?\n2. Which country is #1 in?\n3. Who made Y?\n4. What does #2 call #3?",
     None),
    ("1. Who founded it?", None),                                    # one step: read whole
    ("1. When was X born?\n2. When was Y born?", None),             # the second names no answer
    ("1. Who made #2?\n2. When was it built?", None),                # a reference forward
    ("1. Who made X?\n2. Who made Y?\n3. When was #2 built?", None),  # the first never used
    ("1. A #1\n2. B #1", None),                                      # a hop names itself
    ("\n".join(f"{k}. Q #{k - 1}" if k > 1 else "1. Q" for k in range(1, 6)), None),  # 5 hops
    ("no list at all", None),
])
def test_a_decomposition_is_read_as_linked_sub_questions(reply, hops):
    assert parse_chain(reply) == hops


def test_relation_forms_read_as_questions_and_answers_go_in_for_their_number():
    assert (natural_hop("Steven  Blankaart >> place of birth")
            == "What is the place of birth of Steven Blankaart?")
    assert natural_hop("when did #1 become part of the united states") == (
        "when did #1 become part of the united states")
    assert with_answers("What does #2 call #3 in #2?", ["a", "Belgium", "Fachhochschule"]) == (
        "What does Belgium call Fachhochschule in Belgium?")


def test_the_examples_are_the_musique_train_files_own_chains_from_its_end():
    musique = [json.loads(line) for line in open(TRAIN[1].path)]
    drawn = train_decompositions(TRAIN, 4)
    # one of each length in turn, every one a linked chain of its record's sub-questions
    assert [len(hops) for _, hops in drawn] == [2, 3, 4, 2]
    by_question = {r["question"].strip(): r for r in musique}
    for question, hops in drawn:
        record = by_question[question]
        assert hops == [natural_hop(h["question"]) for h in record["question_decomposition"]]
        assert parse_chain("\n".join(f"{k}. {h}" for k, h in enumerate(hops, 1))) == hops
    # the first 2-hop example is the last record of the file whose sub-questions link
    two = [r for r in reversed(musique) if len(r["question_decomposition"]) == 2
           and parse_chain("\n".join(f"{k}. {natural_hop(h['question'])}" for k, h in
                                     enumerate(r["question_decomposition"], 1)))]
    assert drawn[0][0] == two[0]["question"].strip() and drawn[3][0] == two[1]["question"].strip()
    # none is among the first 30 questions (a reader study's choosing set)
    assert not {q for q, _ in drawn} & {r["question"].strip() for r in musique[:30]}
    # other sources give none; none asked, none drawn
    assert decomposition_examples(train_questions(TRAIN[::2]), 4) == []
    assert train_decompositions(TRAIN, 0) == []


def _fake_reader(first: str, bridge: str):
    """A fake reader: the decomposition of a two-hop question, ``bridge`` for the first
    sub-question, and for any other prompt the question it asks, echoed."""
    def reply(prompt: str) -> str:
        if prompt.startswith("Q: "):
            return f"1. {first}\n2. When was #1 founded?\nmore text"
        asked = prompt.rsplit("QUESTION: ", 1)[-1].split("\n")[0]
        if asked == first:
            return f"{bridge}\nmore words" if bridge else ""
        return f"echo: {asked}"
    return reply


EXAMPLES = [("Who founded the city where X was born?",
             ["Where was X born?", "Who founded #1?"])]
# a question whose last sub-question ("When was #1 founded?") asks for its kind of answer
ASKED = "When was the company that owns it founded?"


def test_a_question_is_read_one_hop_at_a_time(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, own, (a0, a1, b0, b1) = _two_documents(questions, passages)
    first = f"Who owns {own.at[a0, 'title']}?"
    with FakeOpenAIServer(reply=_fake_reader(first, "Acme Corp")) as server:
        answer = read_answers(qa.assign(question=ASKED), retrieved, passages, _client(server),
                              "dpr", "numbered", 16, "Answer briefly.",
                              context_form="documents", hops="typed",
                              decompositions=EXAMPLES).iloc[0]
        decompose, hop, last = (r["messages"] for r in server.requests)
    # the decomposition call: the examples in its system message, the question alone
    assert decompose[0]["content"].startswith(DECOMPOSE_INSTRUCTION)
    assert "Q: Who founded the city where X was born?\n1. Where was X born?\n2. Who founded #1?" \
        in decompose[0]["content"]
    assert decompose[-1]["content"] == f"Q: {ASKED}"
    # each sub-question reads the question's documents under the reader's system message; the
    # first one's answer (its first line) is put in the second
    for call in (hop, last):
        assert call[0]["content"] == "Answer briefly."
        asked = call[-1]["content"]
        assert own.at[a0, "text"] in asked and own.at[b1, "text"] in asked
    assert f"QUESTION: {first}\n" in hop[-1]["content"]
    assert "QUESTION: When was Acme Corp founded?\n" in last[-1]["content"]
    assert answer["answer"] == "echo: When was Acme Corp founded?" and answer["llm_calls"] == 3
    assert answer["prompt_tokens"] == sum(len(c[-1]["content"].split())
                                          for c in (decompose, hop, last))
    assert list(answer["context_ids"]) == [b0, b1, a0, a1]


@pytest.mark.parametrize("question, reply, calls", [
    # a decomposition that is no chain: its call counted, the question read whole
    ("Who founded it?", "1. Who founded it?", 2),
    # a choice question is never broken up
    ("Which was founded first, Acme or Zenith?", "1. When was Acme founded?\n2. #1", 1),
])
def test_other_questions_are_read_whole(hotpot_passages, question, reply, calls):
    questions, passages = hotpot_passages
    qa, retrieved, _, _ = _two_documents(questions, passages)
    with FakeOpenAIServer(reply=lambda p: reply if p.startswith("Q: ") else "whole") as server:
        answer = read_answers(qa.assign(question=question), retrieved, passages,
                              _client(server), "dpr", "numbered", 16, None, hops="typed",
                              decompositions=EXAMPLES).iloc[0]
    assert len(server.requests) == calls == answer["llm_calls"]
    assert answer["answer"] == "whole"
    assert f"QUESTION: {question}\n" in server.requests[-1]["messages"][-1]["content"]


def test_a_sub_question_without_an_answer_leaves_the_question_read_whole(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, own, _ = _two_documents(questions, passages)
    first = "Who owns it?"
    with FakeOpenAIServer(reply=_fake_reader(first, "")) as server:
        answer = read_answers(qa.assign(question=ASKED), retrieved, passages, _client(server),
                              "dpr", "numbered", 16, None, hops="typed",
                              decompositions=EXAMPLES).iloc[0]
    assert answer["llm_calls"] == 3
    assert answer["answer"] == f"echo: {ASKED}"


@pytest.mark.parametrize("question, kind", [
    # the bundled train files' questions and the 1.5B reader's last sub-questions for them
    ("What is the date of birth of the director of film The Charm Of La Boheme?", "date"),
    ("When was Géza von Bolváry born?", "date"),
    ("The Women's National Basketball League includes the Adelaide team that was formed in "
     "what year?", "date"),
    ("What is the place of birth of the director of film They Came To Cordura?", "place"),
    ("Where is Robert Rossen born?", "place"),
    ("Who wrote the book named after the artist known as the most remarkable creation of MTV?",
     "person"),
    ("What book is named after Madonna?", "other"),
    ("The manuscript for Flute Sonata in C major, BWV 1033 is in the hand of a German musician "
     "whose godfather is whom?", "person"),
    # the first question word decides, not one of a relative clause after it (nor one after a
    # relative pronoun: "The film which starred X was directed by whom?" asks for other)
    ("What is the native language of the person who broke the salt law in Belgium in 1930?",
     "other"),
    ("The film which starred Danny Kaye was directed by whom?", "other"),
    ("Which of the two tornado outbreaks killed the most people?", "other"),
    ("How many people died in 2012 Leap Day tornado outbreak?", "number"),
    ("How did #1 die?", "other"),
    ("Name the founder of #1.", "other"),
])
def test_the_kind_of_answer_a_question_asks_for(question, kind):
    assert answer_kind(question) == kind


@pytest.mark.parametrize("question, by_hops", [
    # the last sub-question ("When was #1 founded?") asks for the question's kind: read by hops
    ("When was the company that owns it founded?", True),
    # it asks for a date where the question asks for a person: read whole, no hop asked
    ("Who founded the company that owns it?", False),
])
def test_typed_reads_by_hops_only_a_chain_asking_for_the_questions_kind(hotpot_passages,
                                                                         question, by_hops):
    questions, passages = hotpot_passages
    qa, retrieved, _, _ = _two_documents(questions, passages)
    first = "Who owns it?"
    with FakeOpenAIServer(reply=_fake_reader(first, "Acme Corp")) as server:
        answer = read_answers(qa.assign(question=question), retrieved, passages,
                              _client(server), "dpr", "numbered", 16, None, hops="typed",
                              decompositions=EXAMPLES).iloc[0]
        asked = [r["messages"][-1]["content"] for r in server.requests]
    if by_hops:
        assert answer["llm_calls"] == 3 and f"QUESTION: {first}\n" in asked[1]
        assert answer["answer"] == "echo: When was Acme Corp founded?"
    else:
        assert answer["llm_calls"] == 2 and asked[0] == f"Q: {question}"
        assert answer["answer"] == f"echo: {question}"


def test_an_unknown_or_unshown_hops_reading_is_refused_naming_the_key(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, _, _ = _two_documents(questions, passages)
    with pytest.raises(ValueError, match="read.hops must be one of"):
        read_answers(qa, retrieved, passages, None, "dpr", "numbered", 16, None, hops="each")
    with pytest.raises(ValueError, match="read.hops must be one of"):
        read_answers(qa, retrieved, passages, None, "dpr", "numbered", 16, None, hops="chain")
    with pytest.raises(ValueError, match="read.hops typed needs decomposition examples"):
        read_answers(qa, retrieved, passages, None, "dpr", "numbered", 16, None, hops="typed")
