"""``ask.hops: chain`` (issue 49, with issue 48's reading): a question of two hops asked of a
real PDF made from a 2Wiki train record, through a local OpenAI-compatible test server whose
replies are hand-written; each sub-question is asked with the same quotes, the first one's
cited answer put in the second, and the answer is both replies in turn, grounded as one."""
from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from kgp_kedro.asking import answer_with_citations
from kgp_kedro.asking.answers import cited_answer
from kgp_kedro.corpus import split_passages
from kgp_kedro.corpus.sources import read_source_with_skipped
from kgp_kedro.asking.benchmark import latin, render_pdf
from tests.asking.test_grounding import DEVOTION
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.reading.test_reader_contexts import _client

QUESTION = DEVOTION["question"]     # "Who is the child of the director of film Devotion ...?"
EXAMPLES = [("Who founded the city where X was born?", ["Where was X born?", "Who founded #1?"])]


@pytest.fixture(scope="module")
def devotion(tmp_path_factory):
    """a.pdf: the record's paragraphs of Devotion and of Guido Brignone and a distractor; the
    question, and every passage of the file retrieved in file order."""
    folder = tmp_path_factory.mktemp("docs")
    context = dict(DEVOTION["context"])
    titles = ("Dana Blankstein", "Devotion (1929 film)", "Guido Brignone")
    render_pdf(folder / "a.pdf", [(latin(t), latin(" ".join(context[t]))) for t in titles], [])
    (folder / "questions.jsonl").write_text(json.dumps({"id": "q", "question": QUESTION}) + "\n")
    read = read_source_with_skipped("documents", folder, "docs")
    passages = split_passages(pd.DataFrame(read.documents)).sort_values("order")
    questions = pd.DataFrame(read.questions)
    retrieved = pd.DataFrame({"question_id": questions["question_id"].iloc[0],
                              "rank": range(len(passages)),
                              "passage_id": passages["passage_id"].tolist(),
                              "path": passages["passage_id"].tolist(), "latency_ms": 5.0})
    return questions, passages, retrieved


def _quote_holding(prompt: str, words: str) -> int:
    """The number of the prompt's quote that holds ``words``."""
    return next(int(n) for n, text in re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)
                if words in text)


def _analyst(prompt: str) -> str:
    """A fake reader: the two-hop decomposition; the director cited from the quote naming the
    film's director; the child cited from the quote naming the daughter."""
    if prompt.startswith("Q: "):
        return "1. Who is the director of Devotion (1929 Film)?\n2. Who is the child of #1?"
    asked = prompt.rsplit("Question: ", 1)[-1].split("\n")[0]
    if asked.startswith("Who is the director"):
        return f"Devotion was directed by Guido Brignone [{_quote_holding(prompt, 'directed by')}]."
    subject = asked.removeprefix("Who is the child of ").rstrip("?")
    return (f"{subject}'s child is Lilla Brignone "
            f"[{_quote_holding(prompt, 'father of actress Lilla')}].")


def _ask(devotion, server, **options):
    questions, passages, retrieved = devotion
    return answer_with_citations(
        questions, retrieved, passages, _client(server), "kgp", contexts=8,
        instruction="Answer with citations.", margin_tokens=16, snippet_chars=80,
        grounding="claim", tables="facts", max_documents=4, quote_form="headed",
        distinct_quotes=False, **options).iloc[0]


def test_a_two_hop_question_is_asked_one_sub_question_at_a_time(devotion):
    with FakeOpenAIServer(reply=_analyst) as server:
        row = _ask(devotion, server, decompositions=EXAMPLES)
        decompose, hop, last = (r["messages"] for r in server.requests)
    assert decompose[-1]["content"] == f"Q: {QUESTION}"
    # both sub-questions asked with the same quotes and instruction; the director put in
    assert hop[0] == last[0] and hop[-1]["content"].split("Question: ")[0] == \
        last[-1]["content"].split("Question: ")[0]
    assert "Question: Who is the child of Guido Brignone?\n" in last[-1]["content"]
    # the answer: both replies in turn, each claim found in the quote it cites
    directed = _quote_holding(hop[-1]["content"], "directed by")
    father = _quote_holding(hop[-1]["content"], "father of actress Lilla")
    assert row["answer"] == (f"Devotion was directed by Guido Brignone [{directed}]. "
                             f"Guido Brignone's child is Lilla Brignone [{father}].")
    assert row["mark"] == "supported"
    assert [c["n"] for c in json.loads(row["citations"])] == [directed, father]
    assert row["prompt_tokens"] == sum(len(c[-1]["content"].split())
                                       for c in (decompose, hop, last))


def test_the_whole_reading_and_an_uncited_hop_take_the_question_in_one_answering_call(
        devotion):
    with FakeOpenAIServer(reply=_analyst) as server:
        whole = _ask(devotion, server)
    assert len(server.requests) == 1
    assert server.requests[0]["messages"][-1]["content"].endswith(
        f"Question: {QUESTION}\nAnswer with citations:")
    # a first hop that cites nothing (here: a refusal) ends the chain: the question is read
    # whole, the two calls before it counted
    refusing = lambda p: "The quotes do not say." if "Who is the director" in p else _analyst(p)
    with FakeOpenAIServer(reply=refusing) as server:
        row = _ask(devotion, server, decompositions=EXAMPLES)
    assert len(server.requests) == 3
    assert f"Question: {QUESTION}\n" in server.requests[-1]["messages"][-1]["content"]
    assert row["answer"] == whole["answer"]
    assert row["prompt_tokens"] == sum(len(r["messages"][-1]["content"].split())
                                       for r in server.requests)


def test_a_hop_whose_claim_its_quote_does_not_hold_leaves_the_question_read_whole(devotion):
    # the director named from the distractor's quote (Dana Blankstein's): a true quote, a wrong
    # bridge; the check does not find "Devotion" there, so no second hop is asked
    def wrong_bridge(prompt: str) -> str:
        if "Who is the director" in prompt:
            israeli = _quote_holding(prompt, "Israeli")
            return f"Devotion was directed by Dana Blankstein [{israeli}]."
        return _analyst(prompt)

    with FakeOpenAIServer(reply=wrong_bridge) as server:
        row = _ask(devotion, server, decompositions=EXAMPLES)
    assert len(server.requests) == 3
    assert f"Question: {QUESTION}\n" in server.requests[-1]["messages"][-1]["content"]
    assert "Dana Blankstein" not in row["answer"]


@pytest.mark.parametrize("reply, answer", [
    ("Devotion was directed by Guido Brignone [2].", "Guido Brignone"),
    ("Guido Brignone [1, 3]", "Guido Brignone"),
    # no full name the sub-question lacks: the short answer (the side the question lacks)
    ("The director of Devotion (1929 Film) was born in 1886 [2].", "born in 1886"),
    ("The quotes do not say who directed it.", ""),
])
def test_a_hops_answer_is_the_short_answer_of_a_reply_that_cites(reply, answer):
    assert cited_answer(reply, "Who is the director of Devotion (1929 Film)?") == answer


def _without_the_bridges_page(devotion):
    """The question's retrieval without Guido Brignone's paragraph (the bridge's page, which
    the question does not name), as the entity walk often misses it in a large folder."""
    questions, passages, retrieved = devotion
    bridge = passages.loc[passages["text"].str.contains("father of actress Lilla"),
                          "passage_id"]
    assert len(bridge) == 1
    return questions, passages, retrieved[~retrieved["passage_id"].isin(bridge)], bridge.iloc[0]


def _may_refuse(prompt: str) -> str:
    """The fake reader of :func:`_analyst`, refusing where no quote holds what it cites."""
    try:
        return _analyst(prompt)
    except StopIteration:
        return "The quotes do not say."


def test_hop_quotes_show_a_sub_question_the_page_bm25_finds_for_it(devotion):
    questions, passages, retrieved, bridge = _without_the_bridges_page(devotion)
    options = dict(decompositions=EXAMPLES)
    with FakeOpenAIServer(reply=_may_refuse) as server:
        without = _ask((questions, passages, retrieved), server, **options)
    # the question's quotes alone: the second hop finds no child, the question is read whole
    assert "Lilla" not in without["answer"] and bridge not in without["context_ids"]
    with FakeOpenAIServer(reply=_may_refuse) as server:
        row = _ask((questions, passages, retrieved), server, hop_quotes=2, **options)
        decompose, hop, last = (r["messages"] for r in server.requests)
    # the second sub-question names the director, and BM25 ranks his page first for it: it is
    # quoted after the question's quotes, which keep their numbers
    n = len(without["context_ids"])
    assert list(row["context_ids"][:n]) == list(without["context_ids"])
    father = _quote_holding(last[-1]["content"], "father of actress Lilla")
    assert father > n and row["context_ids"][father - 1] == bridge
    assert _quote_holding(hop[-1]["content"], "directed by") == \
        _quote_holding(last[-1]["content"], "directed by")
    assert row["answer"].endswith(f"Guido Brignone's child is Lilla Brignone [{father}].")
    assert row["mark"] == "supported"
    assert json.loads(row["citations"])[-1]["passage_id"] == bridge


def test_a_question_read_whole_after_its_hops_keeps_only_its_own_quotes(devotion):
    questions, passages, retrieved, bridge = _without_the_bridges_page(devotion)
    # the first hop, shown the director's page too (BM25 ranks it for "director of Devotion"),
    # is refused: the question is read whole over the quotes it had before its hops
    refusing = lambda p: ("The quotes do not say." if "Question: Who is the director" in p
                          else _may_refuse(p))
    with FakeOpenAIServer(reply=refusing) as server:
        row = _ask((questions, passages, retrieved), server, decompositions=EXAMPLES,
                   hop_quotes=2)
        hop_shown = server.requests[1]["messages"][-1]["content"]
        whole_shown = server.requests[-1]["messages"][-1]["content"]
    assert len(server.requests) == 3 and "father of actress Lilla" in hop_shown
    assert f"Question: {QUESTION}\n" in whole_shown
    assert "father of actress Lilla" not in whole_shown and bridge not in row["context_ids"]


def test_hop_quotes_over_passages_of_several_collections_are_refused(devotion):
    questions, passages, retrieved = devotion
    two = passages.assign(collection_id=["a" if k % 2 else "b" for k in range(len(passages))])
    with FakeOpenAIServer(reply=_may_refuse) as server, \
            pytest.raises(ValueError, match="one folder's passages; these hold 2 collections"):
        _ask((questions, two, retrieved), server, decompositions=EXAMPLES, hop_quotes=2)
