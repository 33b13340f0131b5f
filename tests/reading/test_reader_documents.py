"""``read.max_documents`` on real bundled passages (through a local OpenAI-compatible test
server): the prompt holds the passages of at most that many documents, the best ranked, and the
passage budget fills from their later passages. The reading options issue 48 tried and issue 65
removed (``read.context_order``, ``read.select``, ``read.select_min``, ``read.steps_prompt``)
are refused by name."""
from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from kgp_kedro.config.sections import ReadParams
from kgp_kedro.reading import read_answers
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.reading.test_reader_contexts import _client


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
    with FakeOpenAIServer(reply="an answer") as server:
        client = _client(server)
        every = read_answers(qa, retrieved, passages, client, "kgp", "numbered", 16, None,
                             max_passages=4, context_form="documents").iloc[0]
        two = read_answers(qa, retrieved, passages, client, "kgp", "numbered", 16, None,
                           max_passages=4, context_form="documents", max_documents=2).iloc[0]
        prompt = server.requests[-1]["messages"][-1]["content"]
        one = read_answers(qa, retrieved, passages, client, "dpr", "numbered", 16, None,
                           max_documents=1).iloc[0]
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


@pytest.mark.parametrize("key, value", [
    ("max_documents", 0),
    # removed by issue 65 (docs/changelog.md): an env that still sets one is told so
    ("context_order", "rank"), ("select", "none"), ("select_min", 2), ("steps_prompt", "x"),
    ("context_form", "titled"), ("answer_form", "steps"), ("choice", "facts"),
    ("hops", "chain")])
def test_a_removed_or_invalid_reading_option_is_refused_naming_the_key(key, value):
    with pytest.raises(ValidationError, match=key):
        ReadParams(**{key: value})
