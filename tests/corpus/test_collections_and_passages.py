"""Collections (paper §8.1 negatives, Table 3 sizes) and passage splitting on real records."""
from __future__ import annotations

import json
import logging

import numpy as np
import pandas as pd
import pytest

from kgp_kedro.config import ParameterError, validate
from kgp_kedro.config.sections import IngestParams, PassagesParams
from kgp_kedro.corpus import build_collections, split_passages
from kgp_kedro.corpus.collections import document_units
from kgp_kedro.corpus.splitting import pack_sentences, split_sentences
from tests.conftest import MUSIQUE

TABLE3 = {"hotpotqa": 715, "musique": 748, "2wikimultihopqa": 294}


def _subset(data, n):
    questions, documents = data
    questions = questions.head(n)
    return questions, documents[documents["collection_id"].isin(questions["collection_id"])]


def _sizes(passages: pd.DataFrame) -> pd.Series:
    return passages.groupby("collection_id").size()


# --- negatives_per_question (the alternative rule) -------------------------------------------

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
    assert a[a.collection_id == cid]["doc_id"].tolist() == \
        b[b.collection_id == cid]["doc_id"].tolist()
    assert (full.groupby("collection_id")["is_negative"].sum() == 3).all()


def _negatives(collections: pd.DataFrame) -> dict[str, list[str]]:
    return {c: g["doc_id"].tolist() for c, g in
            collections[collections["is_negative"]].groupby("collection_id")}


@pytest.mark.parametrize("size", [None, {"hotpotqa": 120}])
def test_questions_appended_past_the_negative_pool_change_no_collection(hotpot, size):
    """negative_pool 10 on 30 real questions, then 33: the first 30 collections keep their
    negatives exactly (the paper's pool, null, redraws most of them), and each question's
    negatives come from the first max(10, i) questions' documents only."""
    questions, documents = _subset(hotpot, 30)
    more_q, more_d = _subset(hotpot, 33)
    before = build_collections(questions, documents, 5, 42, size, negative_pool=10)
    after = build_collections(more_q, more_d, 5, 42, size, negative_pool=10)
    kept = _negatives(before)
    grown = _negatives(after)
    assert len(kept) == 30 and len(grown) == 33
    assert all(grown[c] == kept[c] for c in kept)
    paper = _negatives(build_collections(questions, documents, 5, 42, size))
    paper_grown = _negatives(build_collections(more_q, more_d, 5, 42, size))
    assert sum(paper_grown[c] != paper[c] for c in paper) > 15
    # by hand: a negative of question i was first seen in one of the first max(10, i)
    position = {c: i for i, c in enumerate(more_q["collection_id"])}
    first_seen = {}
    for cid, title, text in zip(more_d["collection_id"], more_d["title"], more_d["text"]):
        first_seen.setdefault((title, text), position[cid])
    negatives = after[after["is_negative"]]
    for cid, title, text in zip(negatives["collection_id"], negatives["title"],
                                negatives["text"]):
        assert first_seen[(title, text)] < max(10, position[cid])
    with pytest.raises(ValueError, match="negative_pool must be a positive number"):
        build_collections(questions, documents, 5, 42, size, negative_pool=0)


def test_zero_negatives_keeps_the_documents(hotpot):
    questions, documents = _subset(hotpot, 5)
    kept = build_collections(questions, documents, 0, seed=1)
    assert len(kept) == len(documents)
    assert (kept["dataset"] == "hotpotqa").all()   # each document's dataset, for its unit


# --- collection_size: Table 3's passages per collection --------------------------------------

@pytest.mark.parametrize("dataset", ["hotpotqa", "musique", "2wikimultihopqa"])
def test_table3_sizes_are_reached_on_every_bundled_question(dataset, hotpot, musique, twowiki):
    """All bundled questions (300 / 181 / 103): the pools hold 12.5k / 3.6k / 3.3k passages, so
    every collection reaches Table 3's size, to within half of the last document drawn."""
    questions, documents = {"hotpotqa": hotpot, "musique": musique,
                            "2wikimultihopqa": twowiki}[dataset]
    target = TABLE3[dataset]
    collections = build_collections(questions, documents, 20, seed=42, collection_size=TABLE3)
    passages = split_passages(collections)   # the default passages: the units counted
    sizes = _sizes(passages)
    assert len(sizes) == len(questions)
    biggest = int(document_units(documents).max())
    assert (sizes - target).abs().max() <= biggest / 2 + 1
    assert abs(sizes.mean() - target) / target < 0.01
    # the size counted at ingest is the passages the passages stage makes
    units = (collections.assign(units=document_units(collections))
             .groupby("collection_id")["units"].sum())
    pd.testing.assert_series_equal(units.sort_index(), sizes.sort_index(), check_names=False,
                                   check_dtype=False)
    # only the question's own documents are supporting; negatives come from other questions
    negatives = collections[collections["is_negative"]]
    assert not negatives["is_supporting"].any()
    assert not (negatives["doc_id"].str.rsplit("/", n=1).str[0] == negatives["collection_id"]).any()
    own = collections[~collections["is_negative"]]
    assert len(own) == len(documents)


def test_a_target_size_is_seeded_per_question(musique):
    questions, documents = _subset(musique, 40)
    size = {"musique": 200}
    a = build_collections(questions, documents, 20, seed=42, collection_size=size)
    again = build_collections(questions, documents, 20, seed=42, collection_size=size)
    reordered = build_collections(questions.iloc[::-1], documents, 20, seed=42,
                                  collection_size=size)
    other = build_collections(questions, documents, 20, seed=7, collection_size=size)
    pd.testing.assert_frame_equal(a, again)
    for cid in questions["collection_id"]:
        ids = a[a.collection_id == cid]["doc_id"].tolist()
        assert ids == reordered[reordered.collection_id == cid]["doc_id"].tolist()
        assert len(ids) == 200   # a MuSiQue paragraph is one passage: exactly the target
    assert not a.equals(other)
    assert (other.groupby("collection_id").size() == 200).all()


def test_a_pool_too_small_for_the_target_gives_all_it_has_and_warns(hotpot, caplog):
    questions, documents = _subset(hotpot, 3)   # ~3 x 40 sentences: far below 715
    with caplog.at_level(logging.WARNING, logger="kgp_kedro.corpus.collections"):
        collections = build_collections(questions, documents, 20, seed=42,
                                        collection_size={"hotpotqa": 715})
    assert "too small for 715 passages per collection: 3 of 3" in caplog.text
    pool = documents.drop_duplicates(["title", "text"])
    for cid, docs in collections.groupby("collection_id"):
        own_titles = set(documents.loc[documents.collection_id == cid, "title"])
        # every pool document whose title is not already in the collection
        assert len(docs) == len(documents[documents.collection_id == cid]) + \
            (~pool["title"].isin(own_titles) & (pool["collection_id"] != cid)).sum()


def test_collection_size_picks_the_rule_per_dataset(hotpot, musique):
    hq, hd = _subset(hotpot, 20)
    mq, md = _subset(musique, 20)
    questions, documents = pd.concat([hq, mq]), pd.concat([hd, md])
    # MuSiQue null: its collections get negatives_per_question documents; HotpotQA a size
    mixed = build_collections(questions, documents, 4, seed=42,
                              collection_size={"hotpotqa": 150, "musique": None})
    negatives = mixed.groupby(["source", "collection_id"])["is_negative"].sum()
    assert (negatives.loc["musique"] == 4).all()
    sizes = _sizes(split_passages(mixed[mixed["source"] == "hotpotqa"]))
    assert abs(sizes.mean() - 150) < 5
    # null for every dataset: the negatives rule, as before collection sizes existed
    pd.testing.assert_frame_equal(
        build_collections(questions, documents, 4, seed=42, collection_size=None),
        build_collections(questions, documents, 4, seed=42))


def test_collection_size_parameters_are_validated():
    sources = [{"dataset": "musique", "path": "x.jsonl"}]
    params = validate(IngestParams, {"sources": sources}, "ingest")
    assert params.collection_size == TABLE3
    off = validate(IngestParams, {"sources": sources, "collection_size": None}, "ingest")
    assert off.collection_size is None
    with pytest.raises(ParameterError, match=r"ingest\.collection_size\.musique"):
        validate(IngestParams, {"sources": sources, "collection_size": {"musique": 0}}, "ingest")
    assert PassagesParams().paragraph_datasets == ["musique"]


# --- passages --------------------------------------------------------------------------------

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


def test_musique_paragraphs_are_whole_passages_with_their_labels(musique):
    """The default: a MuSiQue paragraph is one passage, its text untouched, supporting exactly
    when the record says ``is_supporting``; a question has as many supporting passages as
    decomposition steps."""
    questions, documents = _subset(musique, 30)
    passages = split_passages(documents)
    assert len(passages) == len(documents)
    raw = {}
    with MUSIQUE.open() as handle:
        for line, _ in zip(handle, range(30)):
            record = json.loads(line)
            raw[record["id"]] = record
    for q in questions.itertuples():
        record = raw[q.question_id]
        ps = passages[passages["collection_id"] == q.collection_id]
        assert ps["text"].tolist() == [p["paragraph_text"].strip() for p in record["paragraphs"]]
        assert ps["is_supporting"].tolist() == [bool(p["is_supporting"])
                                                for p in record["paragraphs"]]
        assert ps["passage_id"].tolist() == [f"musique/{q.question_id}/{p['idx']}#0"
                                             for p in record["paragraphs"]]
        assert ps["is_supporting"].sum() == len(record["question_decomposition"])


def test_musique_paragraphs_are_packed_within_the_budget_when_asked(musique):
    questions, documents = _subset(musique, 10)
    passages = split_passages(documents, max_chars=250, paragraph_datasets=[])
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
    assert len(passages) > 2 * len(documents)


def test_sentence_splits_are_read_back_from_the_cache(musique, tmp_path, monkeypatch):
    """``passages.cache_dir``: a cold cache gives the passages no cache gives; a re-run splits
    nothing (the splitter is not called), and a changed document alone is split again."""
    from kgp_kedro.corpus import splitting

    _, documents = _subset(musique, 5)
    plain = split_passages(documents, max_chars=250, paragraph_datasets=[])
    cache = str(tmp_path / "sentences")
    pd.testing.assert_frame_equal(
        split_passages(documents, max_chars=250, paragraph_datasets=[], cache_dir=cache), plain)
    real, asked = splitting._split_sentences, []

    def spy(texts):
        asked.append(list(texts))
        return real(texts)

    monkeypatch.setattr(splitting, "_split_sentences", spy)
    pd.testing.assert_frame_equal(
        split_passages(documents, max_chars=250, paragraph_datasets=[], cache_dir=cache), plain)
    assert asked == []
    changed = documents.copy()
    first = changed.index[0]
    changed.at[first, "text"] = "A new first sentence. " + changed.at[first, "text"]
    again = split_passages(changed, max_chars=250, paragraph_datasets=[], cache_dir=cache)
    assert asked == [[changed.at[first, "text"]]]
    pd.testing.assert_frame_equal(again, split_passages(changed, max_chars=250,
                                                        paragraph_datasets=[]))


def test_hotpotqa_paragraphs_as_passages(hotpot):
    """A sentence dataset in paragraph_datasets: one passage per paragraph, the paragraph's
    text, supporting when one of its sentences is a supporting fact (negatives never)."""
    questions, documents = _subset(hotpot, 10)
    collections = build_collections(questions, documents, 3, seed=5)
    passages = split_passages(collections, paragraph_datasets=["hotpotqa"])
    assert len(passages) == len(collections)
    assert passages["text"].tolist() == collections["text"].tolist()
    expected = [bool(np.any(s)) if s is not None else False
                for s in collections["sentence_support"]]
    assert passages["is_supporting"].tolist() == expected
    for q in questions.itertuples():
        titles = {t for t, _ in json.loads(q.meta)["supporting_facts"]}
        ps = passages[(passages.collection_id == q.collection_id) & passages.is_supporting]
        assert set(ps["title"]) == titles


def test_a_dataset_is_found_by_its_column_before_its_source_name(musique):
    questions, documents = _subset(musique, 2)
    renamed = documents.assign(source="my_musique")
    assert len(split_passages(renamed)) > len(documents)   # no dataset: packed by source name
    assert len(split_passages(renamed.assign(dataset="musique"))) == len(documents)


def test_pack_sentences_never_cuts_a_sentence():
    sentences = ["a" * 100, "b" * 100, "c" * 100, "d" * 300, "e" * 10]
    assert pack_sentences(sentences, 250) == [[0, 1], [2], [3], [4]]
    assert pack_sentences(sentences, 1000) == [[0, 1, 2, 3, 4]]


def test_the_ingest_and_passages_nodes_apply_the_defaults():
    """The stage nodes with the shipped defaults on 40 MuSiQue questions (a pool of 800
    paragraphs): every collection is Table 3's 748 paragraph passages."""
    from kgp_kedro.io.raw_source import raw_source_datasets
    from kgp_kedro.pipelines.ingest.nodes import add_negative_documents, combine_sources
    from kgp_kedro.pipelines.passages.nodes import split_into_passages

    ingest = {"sources": [{"dataset": "musique", "path": str(MUSIQUE), "limit": 40}]}
    raw = raw_source_datasets({"ingest": ingest})["raw_musique"]
    questions, own, _ = combine_sources(raw.load())
    documents = add_negative_documents(questions, own, ingest)
    passages = split_into_passages(documents, {})
    assert (_sizes(passages) == 748).all() and len(_sizes(passages)) == 40
    assert (documents["dataset"] == "musique").all()
    supporting = passages.groupby("collection_id")["is_supporting"].sum()
    hops = questions.set_index("collection_id")["n_hops"]
    assert (supporting == hops.loc[supporting.index]).all()
    # negatives_per_question where the dataset has no size
    fixed = add_negative_documents(questions, own, {**ingest, "collection_size": {"hotpotqa": 715},
                                                    "negatives_per_question": 7})
    assert (fixed.groupby("collection_id")["is_negative"].sum() == 7).all()
