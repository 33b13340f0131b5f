"""Issue 48's reading options on real bundled passages (through a local OpenAI-compatible test
server): the contexts best last (``read.context_order: reversed``), the reader's own
selection of the contexts it reads (``read.select: reader``) and the passages of at most
``read.max_documents`` documents."""
from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from kgp_kedro.config.sections import ReadParams
from kgp_kedro.reading import read_answers
from kgp_kedro.prompts.selection import SELECT_INSTRUCTION
from kgp_kedro.reading.selection import parse_selection
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.reading.test_reader_contexts import _client, _two_documents


@pytest.mark.parametrize("reply, n, at_least, kept", [
    ("2, 4", 5, 2, [1, 3]),            # the named contexts, 0-based
    ("3", 4, 2, [0, 2]),               # one named: the best-ranked other added
    ("Contexts 7 and 0.", 3, 2, [0, 1]),   # out of range: nothing named, the best two
    ("1, 2, 3", 3, 2, [0, 1, 2]),      # more than the least: all kept
    ("4, 1, 4", 4, 1, [0, 3]),         # rank order, each once
])
def test_a_selection_reply_keeps_the_named_contexts_then_the_best_ranked(reply, n, at_least,
                                                                        kept):
    assert parse_selection(reply, n, at_least) == kept


def _reply(prompt: str) -> str:
    """A fake reader: names context 3 when asked to select, else answers."""
    return "3" if SELECT_INSTRUCTION in prompt else "an answer"


def test_the_reader_selects_the_contexts_its_answering_call_reads(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, own, (a0, a1, b0, b1) = _two_documents(questions, passages)
    with FakeOpenAIServer(reply=_reply) as server:
        answer = read_answers(qa, retrieved, passages, _client(server), "dpr", "numbered", 16,
                              None, context_form="titled", select="reader").iloc[0]
        select, read = (r["messages"][-1]["content"] for r in server.requests)
    # ranked b1, a1, b0, a0: the selection call saw all four, named the third (b0); the best
    # ranked (b1) is added to make two, and the answer reads those two in rank order
    assert f"4: {own.at[a0, 'title']}: {own.at[a0, 'text']}" in select
    assert f"CONTEXT:\n\n1: {own.at[b1, 'title']}: {own.at[b1, 'text']}\n\n" in read
    assert f"2: {own.at[b0, 'title']}: {own.at[b0, 'text']}\n\n=====" in read
    assert own.at[a1, "text"] not in read and own.at[a0, "text"] not in read
    assert list(answer["context_ids"]) == [b1, b0] and list(answer["cut_ids"]) == [a1, a0]
    assert answer["n_contexts"] == 2 and answer["n_cut"] == 2
    # both calls counted: the fake server's tokens are the prompt's words
    assert answer["llm_calls"] == 2 and answer["answer"] == "an answer"
    assert answer["prompt_tokens"] == len(select.split()) + len(read.split())
    assert answer["completion_tokens"] == 2


def test_no_selection_call_where_the_least_kept_is_all_there_is(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, own, (a0, a1, b0, b1) = _two_documents(questions, passages)
    with FakeOpenAIServer(reply=_reply) as server:
        # two documents, at least two kept: nothing to select, one call
        answer = read_answers(qa, retrieved, passages, _client(server), "kgp", "numbered", 16,
                              None, context_form="documents", select="reader").iloc[0]
    assert len(server.requests) == 1 and answer["llm_calls"] == 1
    assert list(answer["context_ids"]) == [b0, b1, a0, a1] and answer["n_cut"] == 0


def test_reversed_order_puts_the_best_context_last(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, own, (a0, a1, b0, b1) = _two_documents(questions, passages)
    with FakeOpenAIServer(reply=_reply) as server:
        answer = read_answers(qa, retrieved, passages, _client(server), "kgp", "numbered", 16,
                              None, context_form="documents", context_order="reversed").iloc[0]
        prompt = server.requests[-1]["messages"][-1]["content"]
    doc_b = f"{own.at[b0, 'title']}: {own.at[b0, 'text']} {own.at[b1, 'text']}"
    doc_a = f"{own.at[a0, 'title']}: {own.at[a0, 'text']} {own.at[a1, 'text']}"
    # B holds the best-ranked passage: it comes last, right before the repeated question
    assert f"CONTEXT:\n\n1: {doc_a}\n\n2: {doc_b}\n\n=====" in prompt
    assert list(answer["context_ids"]) == [b0, b1, a0, a1]


def _three_documents(questions, passages):
    """A question's first three documents of at least two passages each (A, B, C), ranked
    b1, c0, a1, b0, a0, c1: B's best passage first, then C's, then A's."""
    q = questions.iloc[0]
    own = passages[passages["collection_id"] == q.collection_id]
    docs = [d for d, rows in own.groupby("doc_id", sort=False) if len(rows) >= 2][:3]
    (a0, a1), (b0, b1), (c0, c1) = (own.loc[own["doc_id"] == d, "passage_id"].tolist()[:2]
                                    for d in docs)
    rows = [{"question_id": q.question_id, "rank": r, "passage_id": p, "path": p}
            for r, p in enumerate([b1, c0, a1, b0, a0, c1])]
    return questions.head(1), pd.DataFrame(rows), own.set_index("passage_id"), (a0, a1, b0, b1,
                                                                                c0, c1)


def test_at_most_n_documents_fill_the_passage_budget_from_the_best_documents(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, own, (a0, a1, b0, b1, c0, c1) = _three_documents(questions, passages)
    with FakeOpenAIServer(reply=_reply) as server:
        client = _client(server)
        every = read_answers(qa, retrieved, passages, client, "kgp", "numbered", 16, None,
                             max_passages=4, context_form="documents").iloc[0]
        two = read_answers(qa, retrieved, passages, client, "kgp", "numbered", 16, None,
                           max_passages=4, context_form="documents", max_documents=2).iloc[0]
        prompt = server.requests[-1]["messages"][-1]["content"]
        one = read_answers(qa, retrieved, passages, client, "dpr", "numbered", 16, None,
                           context_form="titled", max_documents=1).iloc[0]
    # 4 passages in rank order reach three documents: b1, c0, a1, b0
    assert every["n_contexts"] == 3 and list(every["context_ids"]) == [b0, b1, c0, a1]
    # two documents (B, C): A's passages are skipped, and the budget of 4 takes c1 instead
    doc_b = f"{own.at[b0, 'title']}: {own.at[b0, 'text']} {own.at[b1, 'text']}"
    doc_c = f"{own.at[c0, 'title']}: {own.at[c0, 'text']} {own.at[c1, 'text']}"
    assert f"CONTEXT:\n\n1: {doc_b}\n\n2: {doc_c}\n\n=====" in prompt
    assert own.at[a0, "text"] not in prompt and own.at[a1, "text"] not in prompt
    assert two["n_contexts"] == 2 and list(two["context_ids"]) == [b0, b1, c0, c1]
    assert two["n_cut"] == 0 and list(two["cut_ids"]) == []   # not offered: not the window's cut
    # any context form: one document, B's two passages in rank order
    assert one["n_contexts"] == 2 and list(one["context_ids"]) == [b1, b0]


def test_unknown_order_and_selection_are_refused_naming_the_key(hotpot_passages):
    for key, value in (("context_order", "random"), ("select", "oracle"), ("select_min", 0),
                       ("max_documents", 0)):
        with pytest.raises(ValidationError, match=key):
            ReadParams(**{key: value})
    questions, passages = hotpot_passages
    qa, retrieved, _, _ = _two_documents(questions, passages)
    with FakeOpenAIServer(reply=_reply) as server:
        with pytest.raises(ValueError, match="read.select"):
            read_answers(qa, retrieved, passages, _client(server), "dpr", "numbered", 16, None,
                         select="oracle")
        with pytest.raises(ValueError, match="read.context_order"):
            read_answers(qa, retrieved, passages, _client(server), "dpr", "numbered", 16, None,
                         context_order="random")
