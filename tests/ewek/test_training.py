"""The reranker trained here (EWEK-QA §3.1.1 retrieve and rerank): pairs labelled by the bundled
supporting facts, never from questions that are read, held-out questions kept apart, hard
negatives from the question's own collection; a seeded short training; the model saved as a
versioned Kedro dataset and loaded back for reranking; the guard that keeps the filter's order
when the held-out AUC within questions is too low or the held-out questions' quotes lose
recall@k under the rerank."""
from __future__ import annotations

import json

import numpy as np
import pytest

import pandas as pd

from kgp_kedro.corpus import build_collections, split_passages
from kgp_kedro.evaluation.retrieval import recall_at_k
from kgp_kedro.ewek.params import RerankParams, SplitterParams, TrainingParams
from kgp_kedro.ewek.quotes import collection_pages, paragraph_splitter
from kgp_kedro.ewek.guard import guard_fires, mean_recall, recall_before_after
from kgp_kedro.ewek.rerank import cross_scores
from kgp_kedro.ewek.training import question_pairs, training_pairs
from kgp_kedro.models.cross_encoders import load_cross_encoder
from kgp_kedro.search.lexical import Bm25Index
from kgp_kedro.training.cross_encoder import TrainingPairs, question_auc, train_cross_encoder
from kgp_kedro.training.examples import is_heldout

TINY = TrainingParams(max_pairs=8, negatives_per_positive=1, batch_size=8, max_length=64,
                      device="cpu", cache_dir=None)


@pytest.fixture(scope="module")
def pairs(hotpot_passages, hotpot):
    questions, passages = hotpot_passages
    documents = hotpot[1][hotpot[1]["collection_id"].isin(questions["collection_id"])]
    read = questions["question_id"].tolist()[:1]
    train, _ = training_pairs(questions, documents, passages, read, SplitterParams(), TINY)
    return questions, passages, train


def test_pairs_come_from_questions_not_read_labelled_by_supporting_facts(pairs):
    questions, passages, made = pairs
    assert len(made) == 8 and 0 < sum(made.labels) < 8
    assert questions["question"].iloc[0] not in made.questions   # the read question is left out
    support = passages.loc[passages["is_supporting"], "text"].tolist()
    for quote, label in zip(made.quotes, made.labels):
        assert any(s in quote for s in support) == bool(label)


def test_held_out_questions_never_give_training_pairs_and_sources_take_turns(hotpot, musique):
    """Real HotpotQA and MuSiQue records: a fifth of the eligible questions (every fifth) is
    held out, none of them trains, and both sources give training pairs."""
    parts = [(h[0].head(6), h[1]) for h in (hotpot, musique)]
    questions = pd.concat([p[0] for p in parts], ignore_index=True)
    own = pd.concat([p[1] for p in parts], ignore_index=True)
    documents = own[own["collection_id"].isin(questions["collection_id"])]
    passages = split_passages(build_collections(questions, documents, 2, seed=7))
    params = TrainingParams(max_pairs=1000, heldout_pairs=1000, negatives_per_positive=1)
    read = questions.groupby("source").head(1)["question_id"].tolist()
    train, heldout = training_pairs(questions, documents, passages, read, SplitterParams(),
                                    params)
    trained, held = set(train.question_ids), set(heldout.question_ids)
    assert held and trained and not held & trained and not (held | trained) & set(read)
    assert len(held) == (len(held) + len(trained)) // 5   # 10 eligible: 2 held out
    by_id = questions.set_index("question_id")["source"]
    assert set(by_id[list(trained)]) == {"hotpotqa", "musique"}
    assert is_heldout(4, 0.2) and not any(is_heldout(i, 0.2) for i in range(4))


def test_hard_negatives_are_the_same_questions_bm25_top_non_supporting_quotes(hotpot_passages,
                                                                            hotpot):
    """With ``hard_negatives: 1`` a question's negatives are quotes of its own collection that
    hold no supporting passage, and BM25 scores each of them at least as high as any of its
    non-supporting quotes left out; with 0 they are drawn at random."""
    questions, passages = hotpot_passages
    q = questions.iloc[0]
    documents = hotpot[1][hotpot[1]["collection_id"] == q.collection_id]
    mine = passages[passages["collection_id"] == q.collection_id]
    pool = [quote for page in collection_pages(documents, mine)
            for quote in paragraph_splitter(page, 10, 80)]
    supporting = set(mine.loc[mine["is_supporting"], "passage_id"])
    negative = [p.text for p in pool if not supporting & set(p.passage_ids)]
    texts = [p.text for p in pool]
    bm25 = dict(zip(texts, Bm25Index(texts, 1.5, 0.75).scores(q.question)))
    rng = np.random.default_rng(0)
    made = question_pairs(q.question, pool, supporting, TrainingParams(hard_negatives=1.0), rng)
    chosen = [text for text, label in made if not label]
    left = set(negative) - set(chosen)
    assert chosen and left and set(chosen) <= set(negative)
    assert min(bm25[t] for t in chosen) >= max(bm25[t] for t in left)
    random = question_pairs(q.question, pool, supporting, TrainingParams(hard_negatives=0.0),
                            rng)
    assert {t for t, label in random if not label} <= set(negative)


@pytest.fixture(scope="module")
def trained(pairs):
    return train_cross_encoder(pairs[2], TINY)


def test_a_seeded_short_training_is_reproducible_and_survives_a_save(pairs, trained, tmp_path):
    from kedro.io.core import Version

    from kgp_kedro.io.model_folder import ModelFolderDataset

    made = pairs[2]
    first, seconds = trained
    second, _ = train_cross_encoder(made, TINY)
    texts = made.quotes[:4]
    a = cross_scores(first, made.questions[0], texts)
    assert seconds > 0 and np.allclose(a, cross_scores(second, made.questions[0], texts))
    dataset = ModelFolderDataset(str(tmp_path / "ce"), version=Version(None, None))
    dataset.save(first)
    path = dataset.load()
    assert path.startswith(str(tmp_path / "ce")) and path.endswith("ce")
    loaded = load_cross_encoder(path, "cpu", 64)
    assert np.allclose(a, cross_scores(loaded, made.questions[0], texts), atol=1e-5)


def test_ewek_answers_one_llm_call_a_question_with_checked_citations(hotpot_passages, hotpot,
                                                                     trained, encoder):
    """The whole question loop against a local OpenAI-compatible server that cites quote 2."""
    from kgp_kedro.ewek.params import EwekParams
    from kgp_kedro.ewek.run import ANSWER_COLUMNS, run_ewek
    from kgp_kedro.ewek.facts_graph import make_extractor
    from kgp_kedro.llm import make_llm
    from tests.llm.fake_openai_server import FakeOpenAIServer

    questions, passages = hotpot_passages
    questions = questions.head(2).assign(source="hotpotqa")
    documents = hotpot[1][hotpot[1]["collection_id"].isin(questions["collection_id"])]
    params = EwekParams(facts={"cache_dir": None})
    with FakeOpenAIServer(reply=lambda prompt: "Yes [2]") as server:
        client = make_llm({"backend": "openai", "cache": None,
                           "openai": {"model": "fake", "base_url": server.base_url,
                                      "api_key_env": "PATH", "max_retries": 0}})
        quotes, triples, answers, _ = run_ewek(questions, documents, passages, encoder,
                                               trained[0], client, params, None,
                                               make_extractor("dependency"))
    assert len(server.requests) == 2 * 3   # one composer call per question and method
    assert set(answers) == {"ewek", "ewek_web", "ewek_kg"}
    supporting = set(passages.loc[passages["is_supporting"], "passage_id"])
    for name, table in answers.items():
        assert list(table.columns) == ANSWER_COLUMNS and len(table) == 2
        assert (table["llm_calls"] == 1).all() and (table["answer"] == "Yes").all()
        assert table["citations"].map(list).tolist() == [[2], [2]]
    # trained[0] reranked the quotes: the rows say so, and which triples ToG-E searched
    assert set(answers["ewek"]["ran_as"]) == {
        "kg=toge,facts=dependency quotes=cross-encoder order,evidence=minilm spans"}
    assert set(answers["ewek_kg"]["ran_as"]) == {"kg=toge,facts=dependency"}
    for q, row in zip(questions.itertuples(), answers["ewek_web"].itertuples()):
        mine = quotes[quotes["question_id"] == q.question_id]
        # at most 70 quotes pass the filter; the composer gets the 5 best kept ones
        assert len(mine) <= 70 and sorted(mine.loc[mine["top_rank"] >= 0, "top_rank"]) == \
            list(range(min(5, int(mine["kept"].sum()))))
        second = mine[mine["top_rank"] == 1].iloc[0]   # web-only: [2] is the 2nd quote
        assert row.citation_accuracy == float(bool(supporting & set(second["passage_ids"])))
    # ToG-E: at most N triples per depth, D depths, no LLM call
    per_depth = triples.groupby(["question_id", "depth"]).size()
    assert (per_depth <= 3).all() and triples["depth"].max() <= 3


def test_ewek_replays_the_recorded_composer_input(hotpot_passages, hotpot, trained, encoder,
                                                  tmp_path):
    """A run's composer input, recorded and read back (``ewek.replay``), rebuilds the same
    prompts with no quote selected, no KG searched and no encoder: the same answers, citations
    and their accuracy; a question the recording lacks stops the replay before any call."""
    from kgp_kedro.ewek.params import EwekParams
    from kgp_kedro.ewek.recorded import read_composed, record_composed, replayed_composed
    from kgp_kedro.ewek.run import run_ewek
    from kgp_kedro.ewek.facts_graph import make_extractor
    from kgp_kedro.llm import make_llm
    from tests.llm.fake_openai_server import FakeOpenAIServer

    questions, passages = hotpot_passages
    questions = questions.head(3).assign(source="hotpotqa")
    documents = hotpot[1][hotpot[1]["collection_id"].isin(questions["collection_id"])]
    params = EwekParams(facts={"cache_dir": None})
    path = tmp_path / "composed.csv.gz"

    def answers_of(run_encoder, cross_encoder, extractor, replay=None, reply="Paris [1, 3]",
                   answer_form="line"):
        with FakeOpenAIServer(reply=lambda prompt: reply) as server:
            client = make_llm({"backend": "openai", "cache": None,
                               "openai": {"model": "fake", "base_url": server.base_url,
                                          "api_key_env": "PATH", "max_retries": 0}})
            out = run_ewek(questions, documents, passages, run_encoder, cross_encoder, client,
                           params, None, extractor, replay=replay, answer_form=answer_form)
        # the calls of a batch may reach the server in any order
        return out, sorted(json.dumps(r["messages"], sort_keys=True) for r in server.requests)

    (quotes, triples, answers, composed), prompts = answers_of(encoder, trained[0],
                                                               make_extractor("dependency"))
    assert len(quotes) and len(triples)
    record_composed(path, composed.to_dict("records"))
    replay = replayed_composed(read_composed(path), list(params.methods), questions, path)
    (quotes2, triples2, again, composed2), prompts2 = answers_of(None, None, None, replay)
    assert prompts2 == prompts and quotes2.empty and triples2.empty
    assert composed2.astype(str).equals(composed.astype(str))   # recorded again unchanged
    shown = ["question_id", "answer", "citations", "cited_ids", "citation_accuracy",
             "n_contexts", "n_triples", "n_quotes", "llm_calls", "ran_as"]
    for name in params.methods:
        assert again[name][shown].astype(str).equals(answers[name][shown].astype(str))
    # read.answer_form applies to the composer's answer as to every method's: the citations
    # first removed, then the sentence frame
    for form, answer in (("line", "It was Paris"), ("short", "Paris")):
        (*_, formed, _), _ = answers_of(None, None, None, replay, "It was Paris [1, 3].", form)
        for name in params.methods:
            assert (formed[name]["answer"] == answer).all()
            assert formed[name]["citations"].map(list).tolist() == [[1, 3]] * len(questions)
    with pytest.raises(ValueError, match="composed.csv.gz lacks method 'ewek'.*first: x"):
        replayed_composed(read_composed(path), ["ewek"],
                          questions.head(1).assign(question_id="x"), path)


def test_the_guard_fires_below_the_auc_threshold_on_lost_recall_and_when_unknown():
    assert guard_fires(0.59, 0.6, 0.5, 0.9) and not guard_fires(0.6, 0.6, 0.5, 0.5)
    assert guard_fires(0.9, 0.6, 0.5, 0.4)        # the rerank loses held-out recall
    assert not guard_fires(0.9, 0.6, 0.5, 0.75)   # it gains
    assert guard_fires(float("nan"), 0.0, 0.5, 0.5)   # no held-out question: unchecked
    assert guard_fires(0.9, 0.6, float("nan"), float("nan"))


def test_mean_recall_by_hand():
    """Two questions at k=5: filter 1 and 0.5, rerank 0.5 and 0.5 -> (0.75, 0.5); a question
    without supporting passages (NaN) is left out of the mean; k=1 has no known row."""
    table = pd.DataFrame({"source": "s", "question_id": ["a", "b", "c", "a"], "k": [5, 5, 5, 1],
                          "filter": [1.0, 0.5, np.nan, np.nan],
                          "rerank": [0.5, 0.5, np.nan, np.nan]})
    assert mean_recall(table, 5) == pytest.approx((0.75, 0.5))
    assert all(np.isnan(mean_recall(table, 1)))


def test_recall_before_after_is_the_pipelines_selection_in_both_orders(hotpot_passages, hotpot,
                                                                       trained, encoder):
    """Real HotpotQA questions and the trained model: each row's recall is that of the
    pipeline's own quote selection (``select_quotes``) in the filter's order and in the
    cross-encoder's; at k beyond the filtered quotes both orders hold the same quotes."""
    from kgp_kedro.ewek.params import EwekParams
    from kgp_kedro.ewek.run import Embedder, select_quotes

    questions, passages = hotpot_passages
    questions = questions.head(2).assign(source="hotpotqa")
    documents = hotpot[1][hotpot[1]["collection_id"].isin(questions["collection_id"])]
    params = EwekParams(facts={"cache_dir": None})
    embed = Embedder(encoder)
    table = recall_before_after(questions, documents, passages, embed, trained[0], params,
                                [1, 5, 500])
    assert len(table) == 2 * 3 and set(table["question_id"]) == set(questions["question_id"])
    supporting = passages[passages["is_supporting"]]
    for q in questions.itertuples():
        pages = collection_pages(documents[documents["collection_id"] == q.collection_id],
                                 passages[passages["collection_id"] == q.collection_id])
        chosen = select_quotes(q.question, pages, embed, trained[0], params)
        gold = set(supporting.loc[supporting["collection_id"] == q.collection_id,
                                  "passage_id"])
        ids = [quote.passage_ids for quote in chosen.filtered]
        mine = table[table["question_id"] == q.question_id].set_index("k")
        for k in (1, 5):
            assert mine.loc[k, "filter"] == recall_at_k(ids, gold, k)
            assert mine.loc[k, "rerank"] == recall_at_k([ids[i] for i in chosen.rerank_order],
                                                        gold, k)
        assert mine.loc[500, "filter"] == mine.loc[500, "rerank"] > 0


def test_the_auc_is_within_questions_by_hand():
    """Two questions: q1's positive outranks both its negatives (AUC 1), q2's positive
    outranks one of its two negatives (AUC 0.5); mean 0.75. Pooled, the same scores give
    4/6 ≈ 0.667 (q2's positive sits below q1's negatives), which is why the guard uses the
    mean within questions. q3 has no positive and is left out."""
    made = TrainingPairs()
    made.add("q1", "Q1", [("a", 1.0), ("b", 0.0), ("c", 0.0)])
    made.add("q2", "Q2", [("d", 1.0), ("e", 0.0), ("f", 0.0)])
    made.add("q3", "Q3", [("g", 0.0)])
    scores = [9.0, 8.0, 7.0, 3.0, 4.0, 1.0, 5.0]
    assert question_auc(made, scores) == pytest.approx(0.75)


def test_a_fired_guard_keeps_the_filter_order_and_says_so(hotpot_passages, hotpot, caplog):
    """The ewek nodes on real HotpotQA questions: with no question held out the AUC is unknown,
    so the train node reports the guard fired (and says so), and the answer node then keeps the
    BM25 filter's order (no rerank score) although it is handed the trained model."""
    from kgp_kedro.pipelines.ewek.nodes import answer_with_ewek, train_reranker
    from tests.llm.fake_openai_server import FakeOpenAIServer

    questions, passages = hotpot_passages
    questions = questions.assign(source="hotpotqa")
    documents = hotpot[1][hotpot[1]["collection_id"].isin(questions["collection_id"])]
    ewek = {"training": {**TINY.model_dump(), "heldout_share": 0.0},
            "methods": {"ewek_web": {"kg": "none", "web": True}}, "facts": {"cache_dir": None}}
    with caplog.at_level("INFO", logger="kgp_kedro.pipelines.ewek.nodes"):
        model, report = train_reranker(questions, documents, passages, questions.head(1), ewek,
                                       {"device": "cpu", "cache_dir": None}, {})
    row = report.iloc[0]
    assert row["heldout_pairs"] == 0 and np.isnan(row["heldout_auc"]) and row["guard_fired"]
    assert np.isnan(row["heldout_recall_filter"]) and row["recall_k"] == 5
    assert row["pairs"] == TINY.max_pairs and row["seconds"] > 0
    assert any(r.levelname == "INFO" and "keep the bm25 filter's order" in r.getMessage()
               for r in caplog.records)
    with FakeOpenAIServer(reply=lambda prompt: "Yes [1]") as server:
        llm = {"backend": "openai", "cache": None,
               "openai": {"model": "fake", "base_url": server.base_url, "api_key_env": "PATH",
                          "max_retries": 0}}
        quotes, *_ = answer_with_ewek(questions.head(1), documents, passages, ewek,
                                      {"device": "cpu", "cache_dir": None}, llm, read={},
                                      cross_encoder=model, training=report)
    assert len(quotes) > 1 and (quotes["rerank_rank"] == quotes["filter_rank"]).all()
    assert quotes["rerank_score"].isna().all()


def test_an_unchanged_rerun_loads_the_trained_cross_encoder(pairs, tmp_path, caplog):
    """The same pairs and parameters a second time: the model comes from ``cache_dir`` (no
    training: 0 s, and an INFO line says so) and scores every pair as the trained one does;
    other parameters train a model of their own."""
    from kgp_kedro.ewek.training import trained_cross_encoder

    tp = TINY.model_copy(update={"cache_dir": str(tmp_path)})
    first, seconds = trained_cross_encoder(pairs[2], tp)
    with caplog.at_level("INFO", logger="kgp_kedro.training.artifacts"):
        again, seconds_again = trained_cross_encoder(pairs[2], tp)
    assert seconds > 0 and seconds_again == 0.0
    assert any("not training" in r.getMessage() for r in caplog.records)
    texts = list(zip(pairs[2].questions, pairs[2].quotes))
    assert np.allclose(first.predict(texts), again.predict(texts), atol=1e-6)
    trained_cross_encoder(pairs[2], tp.model_copy(update={"seed": 1}))
    assert len(list(tmp_path.glob("ewek-cross-encoder-*"))) == 2


def test_the_guard_decides_on_held_out_questions_auc_and_recall(hotpot_passages, hotpot, caplog):
    """Half the real HotpotQA questions not read are held out: the report gives their AUC and
    recall@5 in both orders, the guard's decision follows them, and one INFO line says so."""
    from kgp_kedro.pipelines.ewek.nodes import train_reranker

    questions, passages = hotpot_passages
    questions = questions.assign(source="hotpotqa")
    documents = hotpot[1][hotpot[1]["collection_id"].isin(questions["collection_id"])]
    ewek = {"training": {**TINY.model_dump(), "heldout_share": 0.5, "heldout_pairs": 16},
            "facts": {"cache_dir": None}}
    with caplog.at_level("INFO", logger="kgp_kedro.pipelines.ewek.nodes"):
        _, report = train_reranker(questions, documents, passages, questions.head(1), ewek,
                                   {"device": "cpu", "cache_dir": None}, {})
    row = report.iloc[0]
    assert row["heldout_questions"] >= 1 and row["recall_k"] == 5
    assert 0 <= row["heldout_recall_filter"] <= 1 and 0 <= row["heldout_recall_rerank"] <= 1
    assert row["guard_fired"] == (row["heldout_auc"] < 0.6 or row["heldout_recall_rerank"]
                                  < row["heldout_recall_filter"])
    said = [r.getMessage() for r in caplog.records if "held-out questions" in r.getMessage()]
    assert len(said) == 1 and "recall@5" in said[0]
    assert ("keep the filter's order" in said[0]) == bool(row["guard_fired"])


def test_the_train_files_give_collections_of_each_questions_own_documents():
    """The bundled HotpotQA and MuSiQue train samples (first 3 questions each): every question's
    collection is its own documents (HotpotQA 10 paragraphs, MuSiQue 20), split as the
    passages stage splits (HotpotQA sentences, MuSiQue paragraphs), supporting ones marked."""
    from kgp_kedro.config.sections import PassagesParams, Source
    from kgp_kedro.training.sources import source_collections

    sources = [Source(dataset="hotpotqa",
                      path="data/01_raw/hotpotqa/hotpot_train_v1.1_sample100.json", limit=3),
               Source(dataset="musique",
                      path="data/01_raw/musique/musique_ans_v1.0_train_sample100.jsonl", limit=3)]
    questions, documents, passages = source_collections(sources, PassagesParams())
    assert questions.groupby("source").size().to_dict() == {"hotpotqa_train": 3,
                                                            "musique_train": 3}
    sizes = documents.groupby("collection_id").size()
    own = questions.set_index("collection_id")["source"]
    assert set(sizes.index) == set(own.index) and not documents["is_negative"].any()
    assert (sizes[own[own == "musique_train"].index] == 20).all()
    assert (sizes[own[own == "hotpotqa_train"].index] == 10).all()
    per = passages.groupby("collection_id")["is_supporting"].agg(["sum", "size"])
    assert (per["sum"] >= 2).all() and (per["sum"] < per["size"]).all()
    musique = passages[passages["collection_id"].isin(own[own == "musique_train"].index)]
    assert len(musique) == 3 * 20   # one passage a MuSiQue paragraph


def test_a_missing_train_file_names_its_key():
    from kgp_kedro.config.sections import PassagesParams, Source
    from kgp_kedro.training.sources import source_collections

    with pytest.raises(FileNotFoundError, match=r"^ewek\.training\.sources\[0\]\.path"):
        source_collections([Source(dataset="musique", path="data/01_raw/musique/nope.jsonl")],
                           PassagesParams())


def test_a_negative_document_is_labelled_by_its_new_collection_not_its_own(hotpot):
    """Real HotpotQA collections with 4 negative documents each, drawn from the other questions:
    a negative keeps its passage ids, so a passage supporting in its home collection is a
    negative in the collection that borrowed it. Every pair's label is that of its own
    question's supporting passages, and some label-0 pairs hold another question's support."""
    questions, own = hotpot[0].head(8), hotpot[1]
    own = own[own["collection_id"].isin(questions["collection_id"])]
    documents = build_collections(questions, own, 4, seed=7)
    passages = split_passages(documents)
    params = TrainingParams(max_pairs=10000, heldout_share=0.0, negatives_per_positive=100)
    made, _ = training_pairs(questions, documents, passages, [], SplitterParams(), params)
    support = passages[passages["is_supporting"]]
    home = {cid: group["text"].tolist() for cid, group in support.groupby("collection_id")}
    collection = dict(zip(questions["question_id"], questions["collection_id"]))
    borrowed = 0
    for qid, quote, label in zip(made.question_ids, made.quotes, made.labels):
        mine = home[collection[qid]]
        assert any(s in quote for s in mine) == bool(label)
        others = [s for cid, texts in home.items() if cid != collection[qid] for s in texts]
        borrowed += not label and any(s in quote for s in others)
    assert borrowed > 0
