"""HOLMES' and EWEK-QA's methods are found through registries, as KGP's are: the YAML's
``holmes.methods.<name>.kind`` and ``ewek.methods.<name>.kg`` name registered entries, and
an unknown name is an error naming the key."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.config.base import ParameterError, validate
from kgp_kedro.ewek.params import EwekParams, TogParams
from kgp_kedro.ewek.tog import KG_SEARCHES, EmbeddingScorer
from kgp_kedro.ewek.tog_llm import LLMScorer
from kgp_kedro.holmes.methods import HOLMES_METHODS, AnswerMethod
from kgp_kedro.holmes.params import HolmesParams


def test_holmes_kinds_are_registered_methods():
    assert HOLMES_METHODS.names() == ["base", "base_docs", "holmes"]
    methods = HolmesParams().methods
    assert [m.method().reads_facts for m in methods.values()] == [True, True, False, False]
    assert [m.method().with_documents for m in methods.values()] == [False, False, False, True]


def test_a_registered_holmes_method_is_accepted_and_an_unknown_one_named():
    @HOLMES_METHODS.register("toy_docs")
    class FakeDocsAnswer(AnswerMethod):
        """A fake method for this test: the documents baseline under another kind."""

        with_documents = True

    try:
        params = validate(HolmesParams, {"methods": {"mine": {"kind": "toy_docs"}}}, "holmes")
        assert params.methods["mine"].method() is FakeDocsAnswer
    finally:
        HOLMES_METHODS.unregister("toy_docs")
    with pytest.raises(ParameterError, match=r"holmes\.methods\.mine\.kind: .*unknown HOLMES "
                                             r"method "
                                             r"'toy_docs'"):
        validate(HolmesParams, {"methods": {"mine": {"kind": "toy_docs"}}}, "holmes")


def test_ewek_kg_searches_are_registered_scorers():
    assert KG_SEARCHES.names() == ["tog", "toge"]
    embedding = EmbeddingScorer(lambda texts: [[1.0, 0.0] for _ in texts], "q")
    tog = TogParams()
    assert KG_SEARCHES.get("toge")(embedding, None, tog) is embedding
    scorer = KG_SEARCHES.get("tog")(embedding, "client", tog)
    assert isinstance(scorer, LLMScorer)
    assert (scorer.client, scorer.width, scorer.max_tokens) == ("client", tog.width,
                                                                tog.prune_max_tokens)
    with pytest.raises(ParameterError, match=r"ewek\.methods\.x\.kg: .*must be none or one of "
                                             r"tog, toge, got 'kgp'"):
        validate(EwekParams, {"methods": {"x": {"kg": "kgp"}}}, "ewek")


def test_holmes_question_parsers_and_fact_extractors_say_whether_they_need_the_llm():
    from kgp_kedro.facts import EXTRACTORS
    from kgp_kedro.holmes.question import QUESTION_PARSERS

    assert QUESTION_PARSERS.names() == ["llm", "parse"]
    assert [QUESTION_PARSERS.get(n).needs_llm for n in ("llm", "parse")] == [True, False]
    assert {n: EXTRACTORS.get(n).needs_llm for n in EXTRACTORS.names()} == {
        "dependency": False, "llm": True}
    params = validate(HolmesParams, {"question_parser": "llm", "extractor": "llm"}, "holmes")
    assert params.question_parser_class().needs_llm and params.extractor_class().needs_llm
    with pytest.raises(ParameterError,
                       match=r"holmes\.question_parser: .*unknown HOLMES question parser 'spacy'"):
        validate(HolmesParams, {"question_parser": "spacy"}, "holmes")


def test_ewek_fast_filters_are_registered_and_rank_as_their_scores():
    from kgp_kedro.ewek.params import RerankParams
    from kgp_kedro.ewek.rerank import FAST_FILTERS, fast_filter

    assert FAST_FILTERS.names() == ["bm25", "minilm"]
    texts = ["the cat sat", "basalt is a volcanic rock", "volcanic ash"]
    rr = RerankParams()
    order, _ = fast_filter("which rock is volcanic", texts, 2, "bm25", None, rr)
    assert order.tolist() == [1, 2]

    def embed(batch):   # a fake encoder: one axis per word of the question
        words = ["rock", "volcanic"]
        vectors = np.array([[float(w in t) for w in words] for t in batch])
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    order, scores = fast_filter("volcanic rock", texts, 3, "minilm", embed, rr)
    assert order.tolist() == [1, 2, 0] and scores[0] == pytest.approx(1.0)
    with pytest.raises(ParameterError, match=r"ewek\.rerank\.filter: .*must be one of bm25, "
                                             r"minilm, got 'tfidf'"):
        validate(RerankParams, {"filter": "tfidf"}, "ewek.rerank")


def test_holmes_auxiliary_miners_are_registered_and_the_pipeline_feeds_the_models_they_need():
    from kgp_kedro.holmes.schema import AUXILIARY_MINERS

    assert AUXILIARY_MINERS.names() == ["llm", "parse"]
    assert [AUXILIARY_MINERS.get(n).needs_models for n in ("llm", "parse")] == [True, False]
    params = validate(HolmesParams, {"auxiliary": {"method": "llm"}}, "holmes")
    assert params.auxiliary.miner() is AUXILIARY_MINERS.get("llm")
    with pytest.raises(ParameterError, match=r"holmes\.auxiliary\.method: .*unknown HOLMES "
                                             r"auxiliary schema method 'kmeans'"):
        validate(HolmesParams, {"auxiliary": {"method": "kmeans"}}, "holmes")
