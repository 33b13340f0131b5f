"""``read.choice: dates`` on real bundled passages (through a local OpenAI-compatible test
server): a choice question is read one option at a time, each option's fact asked of the same
contexts, then decided by the facts' dates where they tell, else read whole; any other
question in one call."""
from __future__ import annotations

import pytest

from kgp_kedro.reading import read_answers
from kgp_kedro.reading.choices import choice_options, dated_choice, first_date, stated_dates
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


@pytest.mark.parametrize("text, date", [
    ("The Base (film) was directed by Mark L. Lester, born November 26, 1946.", (1946, 11, 26)),
    ("31 August 1987", (1987, 8, 31)),
    ("The Mayor of 44th Street was released in 1942, while Crime After Crime was released in "
     "2011.", (1942, 0, 0)),
    ("Sid Haig", None),
    ("Vic Darchinyan is 44 years old.", None),
])
def test_the_first_date_a_fact_states(text, date):
    assert first_date(text) == date


def test_every_date_a_text_states_in_order():
    assert stated_dates("Released in 1942; its director, born November 26, 1946, died on "
                        "4 February 2014.") == [(1942, 0, 0), (1946, 11, 26), (2014, 2, 4)]
    assert stated_dates("Sid Haig") == []


@pytest.mark.parametrize("question, facts, chosen", [
    # the train files' own choice questions, with facts the 1.5B reader wrote for them
    ("Who was born earlier, Kristine Saastad or Zhang Yangming?",
     [("Kristine Saastad", "31 August 1987"), ("Zhang Yangming", "31 August 1994")],
     "Kristine Saastad"),
    ("Who died first, Mary Elizabeth Rollins Lightner or Linda Hayes?",
     [("Mary Elizabeth Rollins Lightner", "December 17, 1913"), ("Linda Hayes", "May 26, 1998")],
     "Mary Elizabeth Rollins Lightner"),
    ("Which film was released more recently, True Bromance or V Trestném Území?",
     [("True Bromance", "True Bromance: 2012"),
      ("V Trestném Území", "V Trestném Území is a 1950 Czechoslovak film.")], "True Bromance"),
    ("Who is younger, A or B?", [("A", "born 3 May 1950"), ("B", "born 1 May 1950")], "A"),
    # the same year, one given alone: the dates do not tell
    ("Who is younger, A or B?", [("A", "born 3 May 1950"), ("B", "born in 1950")], None),
    ("Which film came out first, Ne Jouez Pas Avec Les Martiens or A Hijacking?",
     [("Ne Jouez Pas Avec Les Martiens", "(1967)"), ("A Hijacking", "came out in 1967.")], None),
    # a fact without a date, a question asking neither end or both
    ("Who is older, Sid Haig or Vic Darchinyan?",
     [("Sid Haig", "Sid Haig"), ("Vic Darchinyan", "Vic Darchinyan is 44 years old.")], None),
    ("Which singer is American, Mark King or Nick Hexum?",
     [("Mark King", "born 1958"), ("Nick Hexum", "born 1970")], None),
    ("Which came first and which came later, A or B?", [("A", "1901"), ("B", "1899")], None),
    # the options' own words ask for no end of time
    ("Which band has more members, The Last Shadow Puppets or Oasis?",
     [("The Last Shadow Puppets", "formed in 2007"), ("Oasis", "formed in 1991")], None),
    ("Which was released more recently, The First Wives Club or Heat?",
     [("The First Wives Club", "released in 1996"), ("Heat", "released in 1995")],
     "The First Wives Club"),
])
def test_the_facts_dates_decide_which_came_earlier_or_later(question, facts, chosen):
    assert dated_choice(question, facts) == chosen


def _choice(questions, own, a0, b0):
    """The first question asked as a choice between its two supporting documents' titles."""
    a, b = own.at[a0, "title"], own.at[b0, "title"]
    return questions.assign(question=f"Which was founded first, {a} or {b}?"), a, b


def _fake_reader(a: str, b: str):
    """A fake reader: a year for each option's fact, else "read whole"."""
    def reply(prompt: str) -> str:
        if f"give the fact about {a} that it compares" in prompt:
            return "1901\nmore words"
        if f"give the fact about {b} that it compares" in prompt:
            return "1899"
        return "read whole"
    return reply


def _read_choice(hotpot_passages, choice: str, asked: str | None = None):
    """The first question asked as a choice between its two supporting documents (or as
    ``asked``, its ``{a}`` and ``{b}`` the two titles), read with ``choice`` by the fake
    reader: its answer row, the prompts the reader was sent, the documents and the options."""
    questions, passages = hotpot_passages
    qa, retrieved, own, ids = _two_documents(questions, passages)
    qa, a, b = _choice(qa, own, ids[0], ids[2])
    if asked:
        qa = qa.assign(question=asked.format(a=a, b=b))
    with FakeOpenAIServer(reply=_fake_reader(a, b)) as server:
        answer = read_answers(qa, retrieved, passages, _client(server), "dpr", "numbered", 16,
                              None, context_form="documents", choice=choice).iloc[0]
        prompts = [r["messages"][-1]["content"] for r in server.requests]
    return answer, prompts, own, ids, a, b


def test_a_choice_questions_facts_are_asked_one_option_at_a_time(hotpot_passages):
    answer, (fact_a, fact_b), own, (a0, a1, b0, b1), a, b = _read_choice(
        hotpot_passages, "dates")
    # each fact call reads the question's documents
    for fact in (fact_a, fact_b):
        assert own.at[a0, "text"] in fact and own.at[b1, "text"] in fact
    assert list(answer["context_ids"]) == [b0, b1, a0, a1]


def test_the_dates_decide_a_choice_with_no_answering_call(hotpot_passages):
    answer, asked, _, _, _, b = _read_choice(hotpot_passages, "dates")
    # two fact calls, then the earlier date (1899, the second option's) decides
    assert len(asked) == 2 and all("FACTS:" not in p for p in asked)
    assert answer["answer"] == b and answer["raw_response"] == b
    assert answer["llm_calls"] == 2
    assert answer["prompt_tokens"] == sum(len(p.split()) for p in asked)


def test_a_choice_the_dates_do_not_tell_is_read_whole(hotpot_passages):
    answer, asked, _, _, _, _ = _read_choice(hotpot_passages, "dates",
                                             "Which has more members, {a} or {b}?")
    # the question asks which has more, not which came earlier or later: after the two fact
    # calls the question itself is asked
    assert len(asked) == 3 and "FACTS:" not in asked[-1]
    assert answer["answer"] == "read whole" and answer["llm_calls"] == 3


def test_other_questions_and_the_whole_reading_take_one_call(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, own, (a0, a1, b0, b1) = _two_documents(questions, passages)
    choice, a, b = _choice(qa, own, a0, b0)
    plain = qa.assign(question="Who founded it?")
    for asked, form in ((plain, "dates"), (choice, "whole")):
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
