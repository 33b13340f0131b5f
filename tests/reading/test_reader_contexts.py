"""What the reader records as seen: every passage of the contexts it was given, in both prompt
styles, on real bundled passages (through a local OpenAI-compatible test server)."""
from __future__ import annotations

import pandas as pd
import pytest

from kgp_kedro.config.sections import ReadParams
from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from kgp_kedro.reading import qa_prompt, read_answers
from tests.llm.fake_openai_server import FakeOpenAIServer


def _paths(questions, passages):
    """Paper-mode-like rows: each question's first passage as a seed of two paths."""
    q = questions.iloc[0]
    ids = passages.loc[passages["collection_id"] == q.collection_id, "passage_id"].tolist()
    seed, a, b = ids[0], ids[1], ids[2]
    rows = [{"question_id": q.question_id, "rank": 0, "passage_id": a, "path": f"{seed} > {a}"},
            {"question_id": q.question_id, "rank": 1, "passage_id": b, "path": f"{seed} > {b}"}]
    return questions.head(1), pd.DataFrame(rows), (seed, a, b)


def test_every_passage_of_a_kept_path_is_recorded_as_seen(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, (seed, a, b) = _paths(questions, passages)
    with FakeOpenAIServer(reply=lambda prompt: "an answer") as server:
        client = LLMClient(OpenAIBackend("m", base_url=server.base_url, api_key="k"), None,
                           max_tokens=8)
        paths = read_answers(qa, retrieved, passages, client, "kgp", "paths", 16, None).iloc[0]
        numbered = read_answers(qa, retrieved, passages, client, "kgp", "numbered", 16,
                                None).iloc[0]
    # Listing 4: two contexts (one per path); the seed was seen, in both
    assert paths["n_contexts"] == 2 and list(paths["context_ids"]) == [seed, a, b]
    assert list(paths["cut_ids"]) == []
    # Listing 3: one context per distinct passage of the paths, seed first
    assert numbered["n_contexts"] == 3 and list(numbered["context_ids"]) == [seed, a, b]


def test_a_cut_path_records_only_its_passages_not_already_seen(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, (seed, a, b) = _paths(questions, passages)
    text = passages.drop_duplicates("passage_id").set_index("passage_id")["text"]
    with FakeOpenAIServer(reply=lambda prompt: "x") as server:
        backend = OpenAIBackend("m", base_url=server.base_url, api_key="k")
        client = LLMClient(backend, None, max_tokens=8)
        first_path = qa_prompt(qa["question"].iloc[0], [f"{text[seed]}\n{text[a]}"], "paths")
        backend.context_window = backend.count_tokens(first_path) + 8 + 16  # the first path fits
        answer = read_answers(qa, retrieved, passages, client, "kgp", "paths", 16, None).iloc[0]
    assert answer["n_contexts"] == 1 and answer["n_cut"] == 1
    assert list(answer["context_ids"]) == [seed, a] and list(answer["cut_ids"]) == [b]


def test_a_passage_budget_keeps_whole_contexts_while_their_distinct_passages_fit(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, (seed, a, b) = _paths(questions, passages)
    with FakeOpenAIServer(reply=lambda prompt: "x") as server:
        client = LLMClient(OpenAIBackend("m", base_url=server.base_url, api_key="k"), None,
                           max_tokens=8)
        # paths seed>a, seed>b: the first holds 2 passages, both 3
        two = read_answers(qa, retrieved, passages, client, "kgp", "paths", 16, None,
                           max_passages=2).iloc[0]
        three = read_answers(qa, retrieved, passages, client, "kgp", "paths", 16, None,
                             max_passages=3).iloc[0]
        one = read_answers(qa, retrieved, passages, client, "kgp", "numbered", 16, None,
                           max_passages=1).iloc[0]
    assert two["n_contexts"] == 1 and list(two["context_ids"]) == [seed, a]
    assert two["n_cut"] == 0  # beyond the budget is not the window's cut
    assert three["n_contexts"] == 2 and list(three["context_ids"]) == [seed, a, b]
    assert one["n_contexts"] == 1 and list(one["context_ids"]) == [seed]


def _client(server):
    return LLMClient(OpenAIBackend("m", base_url=server.base_url, api_key="k"), None,
                     max_tokens=8)


def _two_documents(questions, passages):
    """A question's two supporting documents, each with two passages, ranked out of document
    order: doc B's second passage first, then doc A's second, then B's first, then A's first."""
    q = questions.iloc[0]
    own = passages[passages["collection_id"] == q.collection_id]
    docs = [d for d, rows in own.groupby("doc_id", sort=False) if len(rows) >= 2][:2]
    (a0, a1), (b0, b1) = (own.loc[own["doc_id"] == d, "passage_id"].tolist()[:2] for d in docs)
    ranked = [b1, a1, b0, a0]
    rows = [{"question_id": q.question_id, "rank": r, "passage_id": p, "path": p}
            for r, p in enumerate(ranked)]
    return questions.head(1), pd.DataFrame(rows), own.set_index("passage_id"), (a0, a1, b0, b1)


def test_document_contexts_group_passages_under_one_title_in_document_order(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, own, (a0, a1, b0, b1) = _two_documents(questions, passages)
    with FakeOpenAIServer(reply=lambda prompt: "x") as server:
        client = _client(server)
        # a paths-style method reads documents as Listing 3 too
        answer = read_answers(qa, retrieved, passages, client, "kgp", "paths", 16, None,
                              context_form="documents").iloc[0]
        prompt = server.requests[-1]["messages"][-1]["content"]
        three = read_answers(qa, retrieved, passages, client, "kgp", "numbered", 16, None,
                             max_passages=3, context_form="documents").iloc[0]
    doc_b = f"{own.at[b0, 'title']}: {own.at[b0, 'text']} {own.at[b1, 'text']}"
    doc_a = f"{own.at[a0, 'title']}: {own.at[a0, 'text']} {own.at[a1, 'text']}"
    # B first (its passage ranked first), each document's passages in document order
    assert f"CONTEXT:\n\n1: {doc_b}\n\n2: {doc_a}\n\n=====" in prompt
    assert answer["n_contexts"] == 2
    assert list(answer["context_ids"]) == [b0, b1, a0, a1]
    # the passage budget counts passages before they are grouped: A keeps only its ranked one
    assert three["n_contexts"] == 2 and list(three["context_ids"]) == [b0, b1, a1]


def test_a_passage_window_shows_each_passage_with_its_neighbours_in_document_order(
        hotpot_passages):
    questions, passages = hotpot_passages
    q = questions.iloc[0]
    own = passages[passages["collection_id"] == q.collection_id]
    doc = next(rows for _, rows in own.groupby("doc_id", sort=False) if len(rows) >= 4)
    p0, p1, p2, p3 = doc.sort_values("order")["passage_id"].tolist()[:4]
    retrieved = pd.DataFrame([{"question_id": q.question_id, "rank": 0, "passage_id": p2,
                               "path": p2}])
    text = own.set_index("passage_id")["text"]
    with FakeOpenAIServer(reply=lambda prompt: "x") as server:
        client = _client(server)
        alone = read_answers(questions.head(1), retrieved, passages, client, "dpr", "numbered",
                             16, None, context_form="documents").iloc[0]
        framed = read_answers(questions.head(1), retrieved, passages, client, "dpr",
                              "numbered", 16, None, context_form="documents",
                              passage_window=1).iloc[0]
        prompt = server.requests[-1]["messages"][-1]["content"]
    assert list(alone["context_ids"]) == [p2]
    # the passage before and the one after, in document order; not the one two away
    assert list(framed["context_ids"]) == [p1, p2, p3] and framed["n_contexts"] == 1
    assert f"1: {doc['title'].iloc[0]}: {text[p1]} {text[p2]} {text[p3]}\n\n" in prompt
    assert text[p0] not in prompt


def test_a_passage_window_needs_the_documents_form(hotpot_passages):
    questions, passages = hotpot_passages
    qa, retrieved, _, _ = _two_documents(questions, passages)
    with pytest.raises(ValueError, match="passage_window .* needs read.context_form documents"):
        read_answers(qa, retrieved, passages, None, "dpr", "numbered", 16, None,
                     passage_window=1)
    with pytest.raises(ValueError, match="passage_window"):
        ReadParams(passage_window=1, context_form="passages")
    assert ReadParams(passage_window=1, context_form="documents").passage_window == 1
