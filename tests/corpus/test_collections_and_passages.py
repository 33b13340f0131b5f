"""Collections (paper §8.1 negatives) and passage splitting on real records."""
from __future__ import annotations

import json

import pandas as pd

from kgp_kedro.corpus import build_collections, split_passages
from kgp_kedro.corpus.splitting import pack_sentences, split_sentences


def _subset(data, n):
    questions, documents = data
    questions = questions.head(n)
    return questions, documents[documents["collection_id"].isin(questions["collection_id"])]


def test_negatives_come_from_other_questions_and_are_seeded(hotpot):
    questions, documents = _subset(hotpot, 30)
    full = build_collections(questions, documents, 5, seed=42)
    again = build_collections(questions, documents, 5, seed=42)
    other = build_collections(questions, documents, 5, seed=43)
    pd.testing.assert_frame_equal(full, again)
    assert not full.equals(other)
    for cid, docs in full.groupby("collection_id"):
        own, neg = docs[~docs["is_negative"]], docs[docs["is_negative"]]
        assert len(neg) == 5
        assert not neg["is_supporting"].any()
        assert not set(neg["title"]) & set(own["title"])
        assert not neg["doc_id"].str.startswith(cid + "/").any()
        assert list(docs["position"]) == list(range(len(docs)))


def test_negatives_do_not_depend_on_the_other_questions_kept(hotpot):
    questions, documents = _subset(hotpot, 30)
    small_q, small_d = _subset(hotpot, 10)
    full = build_collections(questions, documents, 3, seed=1)
    cid = small_q["collection_id"].iloc[0]
    # the pool differs (10 vs 30 questions), so only the size and the labels are comparable;
    # the same question and pool give the same draw
    a = build_collections(small_q, small_d, 3, seed=1)
    b = build_collections(small_q.iloc[::-1], small_d, 3, seed=1)
    assert a[a.collection_id == cid]["doc_id"].tolist() == b[b.collection_id == cid]["doc_id"].tolist()
    assert (full.groupby("collection_id")["is_negative"].sum() == 3).all()


def test_zero_negatives_keeps_the_documents(hotpot):
    questions, documents = _subset(hotpot, 5)
    assert len(build_collections(questions, documents, 0, seed=1)) == len(documents)


def test_sentence_level_passages_carry_the_supporting_facts(hotpot):
    questions, documents = _subset(hotpot, 20)
    passages = split_passages(build_collections(questions, documents, 2, seed=3))
    for q in questions.itertuples():
        facts = {(t, i) for t, i in json.loads(q.meta)["supporting_facts"]}
        ps = passages[passages["collection_id"] == q.collection_id]
        got = {(p.title, int(p.passage_id.rsplit("#", 1)[1])) for p in ps.itertuples()
               if p.is_supporting}
        own_titles = set(documents[documents.collection_id == q.collection_id]["title"])
        assert got == {f for f in facts if f[0] in own_titles}
        assert ps["passage_id"].is_unique


def test_musique_paragraphs_are_packed_within_the_budget(musique):
    questions, documents = _subset(musique, 10)
    passages = split_passages(documents, max_chars=250)
    for doc in documents.itertuples():
        ps = passages[(passages["doc_id"] == doc.doc_id)]
        assert len(ps) >= 1
        assert (ps["is_supporting"] == doc.is_supporting).all()  # paragraph-level labels
        # every character of the paragraph survives, in order (the sentencizer may split
        # inside a token such as "''It", so compare without whitespace)
        assert "".join("".join(ps["text"]).split()) == "".join(doc.text.split())
    over = passages.loc[passages["text"].str.len() > 250, "text"].tolist()
    # only a sentence longer than the budget makes a longer passage, and then it is alone
    assert all(len(s) == 1 for s in split_sentences(over))
    assert len(over) < 0.1 * len(passages)


def test_pack_sentences_never_cuts_a_sentence():
    sentences = ["a" * 100, "b" * 100, "c" * 100, "d" * 300, "e" * 10]
    assert pack_sentences(sentences, 250) == [[0, 1], [2], [3], [4]]
    assert pack_sentences(sentences, 1000) == [[0, 1, 2, 3, 4]]
