"""Paragraph Splitter and Evidence Extractor rules (EWEK-QA §3.1.1, A.7) on hand-made text, and
quotes of a real bundled HotpotQA collection mapped to its passages."""
from __future__ import annotations

import numpy as np

from kgp_kedro.ewek.quotes import (Page, Sentence, collection_pages, evidence_span,
                                   make_page, paragraph_splitter, split_paragraph)


def words(n: int, stem: str = "w") -> str:
    return " ".join(f"{stem}{i}" for i in range(n - 1)) + f" {stem}end."


def test_a_paragraph_under_ten_tokens_is_dropped_and_ten_tokens_are_kept():
    assert split_paragraph([9], 10, 80) == []
    assert split_paragraph([4, 5], 10, 80) == []
    assert split_paragraph([10], 10, 80) == [[0]]
    assert split_paragraph([80], 10, 80) == [[0]]   # 80 is not over 80


def test_a_paragraph_over_eighty_tokens_is_split_at_sentence_boundaries():
    # 30 + 30 = 60 fits, + 30 = 90 does not: a new quote starts at the third sentence
    assert split_paragraph([30, 30, 30], 10, 80) == [[0, 1], [2]]
    assert split_paragraph([50, 31, 49, 2], 10, 80) == [[0], [1, 2], [3]]
    # a sentence longer than 80 tokens alone is kept whole (boundaries respected)
    assert split_paragraph([5, 100, 5], 10, 80) == [[0], [1], [2]]


def test_pages_split_on_line_breaks_and_quotes_keep_their_passages():
    text = (f"{words(5, 'short')}\n"                     # 5 tokens: dropped
            f"{words(30, 'a')} {words(30, 'b')} {words(30, 'c')}\n"   # 90 tokens: two quotes
            f"{words(12, 'd')}")
    passages = [("doc#0", words(30, "a") + " " + words(30, "b")), ("doc#1", words(30, "c")),
                ("doc#2", words(12, "d")), ("doc#3", words(5, "short"))]
    page = make_page("doc", "Doc", text, None, passages)
    assert [len(p) for p in page.paragraphs] == [1, 3, 1]
    quotes = paragraph_splitter(page, 10, 80)
    assert [q.text for q in quotes] == [f"{words(30, 'a')} {words(30, 'b')}", words(30, "c"),
                                        words(12, "d")]
    assert [q.passage_ids for q in quotes] == [("doc#0",), ("doc#1",), ("doc#2",)]
    assert [q.origin for q in quotes] == ["ps"] * 3 and len({q.quote_id for q in quotes}) == 3


def test_the_evidence_span_grows_from_the_best_sentence_within_the_margin_and_token_budget():
    scores = [0.1, 0.55, 0.6, 0.52, 0.58, 0.2]
    # best is 2 (0.6); floor 0.5: 4 (0.58) is not adjacent yet; 1 (0.55) > 3 (0.52) joins first,
    # then 3, then 4; 0 and 5 are under the floor
    assert evidence_span(scores, [10] * 6, 128, 0.1) == (1, 5)
    assert evidence_span(scores, [10] * 6, 20, 0.1) == (1, 3)    # budget: two sentences
    assert evidence_span(scores, [10] * 6, 128, 0.0) == (2, 3)    # no margin: the best alone


def test_evidence_extractor_stays_in_the_best_sentences_paragraph():
    from kgp_kedro.ewek.quotes import evidence_extractor

    page = Page("d", "D", ((Sentence("one two", "d#0"), Sentence("three four", "d#1")),
                           (Sentence("five six", "d#2"), Sentence("seven eight", "d#3"))))
    quote = evidence_extractor(page, np.array([0.9, 0.1, 0.85, 0.8]), 128, 0.1)
    # best sentence 0 (0.9): its paragraph's neighbour scores 0.1, under 0.8; sentence 2 is
    # in another paragraph and never joins
    assert quote.text == "one two" and quote.passage_ids == ("d#0",) and quote.origin == "ee"


def test_real_hotpot_collection_quotes_cover_its_sentence_passages(hotpot_passages, hotpot):
    questions, passages = hotpot_passages
    _, documents = hotpot
    cid = questions["collection_id"].iloc[0]
    docs = documents[documents["collection_id"] == cid]
    mine = passages[passages["collection_id"] == cid]
    pages = collection_pages(docs[docs["doc_id"].isin(mine["doc_id"])], mine)
    quotes = [q for page in pages for q in paragraph_splitter(page, 10, 80)]
    assert quotes
    text = dict(zip(mine["passage_id"], mine["text"]))
    for q in quotes:
        assert q.passage_ids and all(text[p] in q.text for p in q.passage_ids)
        assert len(q.text.split()) >= 10
        # a quote over 80 tokens is a single sentence (a sentence is never cut)
        assert len(q.text.split()) <= 80 or len(q.passage_ids) == 1
