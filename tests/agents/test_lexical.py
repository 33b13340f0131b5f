"""Batched TF-IDF (agents/lexical.py) against the one-set TF-IDF of search/tfidf.py, on
bundled passages."""
from __future__ import annotations

import numpy as np

from kgp_kedro.agents.lexical import TextCounts, search_scores, similarities
from kgp_kedro.corpus.collection import iter_collections
from kgp_kedro.search.tfidf import TfidfIndex, text_similarity


def test_many_sets_tokenised_once_score_as_each_set_alone(hotpot_passages):
    questions, passages = hotpot_passages
    collections = {c.collection_id: c for c in iter_collections(passages)}
    asked = [(q.question, collections[q.collection_id]) for q in questions.itertuples()]
    union = TextCounts([t for _, c in asked for t in c.texts])
    for question, collection in asked:
        alone = TextCounts(collection.texts)
        together = search_scores(union, question, collection.texts)
        # the same bits from the union's counts as from the collection's own
        assert np.array_equal(together, search_scores(alone, question, collection.texts))
        # TfidfIndex's numbers up to the order of summation
        np.testing.assert_allclose(together, TfidfIndex(collection.texts).scores(question),
                                   rtol=1e-12, atol=1e-15)
        candidates = collection.texts[5:25]
        step = TextCounts([question, *candidates])
        np.testing.assert_allclose(similarities(step, question, candidates),
                                   text_similarity(question, candidates), rtol=1e-12,
                                   atol=1e-15)
        everything = TextCounts([question, *collection.texts, *union.texts])
        assert np.array_equal(similarities(everything, question, candidates),
                              similarities(step, question, candidates))


def test_sets_without_words():
    counts = TextCounts(["a", "!!", ""])
    assert search_scores(counts, "anything", ["a", "!!"]).tolist() == [0.0, 0.0]
    assert similarities(counts, "a", []).tolist() == []
    words = TextCounts(["volcanic rock", "", "the cat"])
    assert similarities(words, "volcanic rock", ["", "the cat"]).tolist() == [0.0, 0.0]
