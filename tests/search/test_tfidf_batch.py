"""The one TF-IDF (search/tfidf.py), batched over many sets, against scikit-learn's
``TfidfVectorizer`` fitted on each set alone, on bundled passages."""
from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from kgp_kedro.corpus.collection import iter_collections
from kgp_kedro.search.tfidf import TextCounts, TfidfIndex, similarities, text_similarity


def sklearn_scores(query: str, texts: list[str]) -> np.ndarray:
    """The cosine of each text to ``query`` from a ``TfidfVectorizer`` fitted on ``texts``."""
    vectorizer = TfidfVectorizer()
    matrix = vectorizer.fit_transform(texts)
    return (matrix @ vectorizer.transform([query]).T).toarray().ravel()


def test_many_sets_tokenised_once_score_as_each_set_alone(hotpot_passages):
    questions, passages = hotpot_passages
    collections = {c.collection_id: c for c in iter_collections(passages)}
    asked = [(q.question, collections[q.collection_id]) for q in questions.itertuples()]
    union = TextCounts([t for _, c in asked for t in c.texts])
    for question, collection in asked:
        together = TfidfIndex(collection.texts, union).scores(question)
        # the same bits from the union's counts as from the collection's own
        assert np.array_equal(together, TfidfIndex(collection.texts).scores(question))
        # scikit-learn's numbers up to the order of summation
        np.testing.assert_allclose(together, sklearn_scores(question, collection.texts),
                                   rtol=1e-12, atol=1e-15)
        candidates = collection.texts[5:25]
        step = TextCounts([question, *candidates])
        np.testing.assert_allclose(similarities(step, question, candidates),
                                   sklearn_scores(question, [question, *candidates])[1:],
                                   rtol=1e-12, atol=1e-15)
        assert np.array_equal(text_similarity(question, candidates),
                              similarities(step, question, candidates))
        everything = TextCounts([question, *collection.texts, *union.texts])
        assert np.array_equal(similarities(everything, question, candidates),
                              similarities(step, question, candidates))


def test_sets_without_words():
    counts = TextCounts(["a", "!!", ""])
    assert TfidfIndex(["a", "!!"], counts).scores("anything").tolist() == [0.0, 0.0]
    assert similarities(counts, "a", []).tolist() == []
    words = TextCounts(["volcanic rock", "", "the cat"])
    assert similarities(words, "volcanic rock", ["", "the cat"]).tolist() == [0.0, 0.0]
