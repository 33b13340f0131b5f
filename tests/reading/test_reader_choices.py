"""``read.choice: facts`` on real bundled passages (through a local OpenAI-compatible test
server): a choice question is read one option at a time, each option's fact asked of the same
contexts, then the question asked of the two facts alone; any other question in one call."""
from __future__ import annotations

import pytest

from kgp_kedro.reading import read_answers
from kgp_kedro.reading.choices import choice_options
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.reading.test_reader_contexts import _client, _two_documents


@pytest.mark.parametrize("question, options", [
    ("Which film came out first, The Prairie King or Confessions Of An Opium Eater?",
     ("The Prairie King", "Confessions Of An Opium Eater")),
    ("Who was born first, Mark King or Nick Hexum?", ("Mark King", "Nick Hexum")),
    ("Who was born first?", None),
    ("Are Sid Haig and Vic Darchinyan both actors?", None),
    ("Which is older, the Pterocarya or the Cotula, or neither?", None),
])
def test_a_choice_question_names_its_two_options_in_its_last_clause(question, options):
    assert choice_options(question) == options


def _choice(questions, own, a0, b0):
    """The first question asked as a choice between its two supporting documents' titles."""
    a, b = own.at[a0, "title"], own.at[b0, "title"]
    return questions.assign(question=f"Which was founded first, {a} or {b}?"), a, b


def _fake_reader(a: str, b: str):
    """A fake reader: a year for each option's fact, the second option when asked of facts."""
    def reply(prompt: str) -> str:
        if f"give the fact about {a} that it compares" in prompt:
            return "1901\nmore words"
        if f"give the fact about {b} that it compares" in prompt:
            return "1899"
        return b if "FACTS:" in prompt else "read whole"
    return reply


def test_a_choice_question_is_read_one_option_at_a_time(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, own, (a0, a1, b0, b1) = _two_documents(questions, passages)
    qa, a, b = _choice(qa, own, a0, b0)
    with FakeOpenAIServer(reply=_fake_reader(a, b)) as server:
        answer = read_answers(qa, retrieved, passages, _client(server), "dpr", "numbered", 16,
                              None, context_form="documents", choice="facts").iloc[0]
        fact_a, fact_b, final = (r["messages"][-1]["content"] for r in server.requests)
    # each fact call reads the question's documents; the answering call the facts alone, the
    # fact's first line only
    for fact in (fact_a, fact_b):
        assert own.at[a0, "text"] in fact and own.at[b1, "text"] in fact
    assert f"FACTS:\n\n{a}: 1901\n\n{b}: 1899\n\n=====" in final
    assert own.at[a0, "text"] not in final and "more words" not in final
    assert answer["answer"] == b and answer["llm_calls"] == 3
    assert answer["prompt_tokens"] == sum(len(p.split()) for p in (fact_a, fact_b, final))
    assert list(answer["context_ids"]) == [b0, b1, a0, a1]


def test_other_questions_and_the_whole_reading_take_one_call(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, own, (a0, a1, b0, b1) = _two_documents(questions, passages)
    choice, a, b = _choice(qa, own, a0, b0)
    plain = qa.assign(question="Who founded it?")
    for asked, form in ((plain, "facts"), (choice, "whole")):
        with FakeOpenAIServer(reply=_fake_reader(a, b)) as server:
            answer = read_answers(asked, retrieved, passages, _client(server), "dpr",
                                  "numbered", 16, None, context_form="documents",
                                  choice=form).iloc[0]
        assert len(server.requests) == 1 and answer["llm_calls"] == 1
        assert answer["answer"] == "read whole"


def test_an_unknown_choice_is_refused_naming_the_key(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, _, _ = _two_documents(questions, passages)
    with pytest.raises(ValueError, match="read.choice must be one of"):
        read_answers(qa, retrieved, passages, None, "dpr", "numbered", 16, None,
                     choice="each")
