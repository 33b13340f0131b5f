"""The default ``kedro run`` end to end on a few real questions with the embedded LLM:
retrieve -> read -> score -> report (the session's project run; its results notebook:
tests/notebooks)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from kgp_kedro.evaluation.qa_metrics import exact_match, f1_score
from tests.projects import QA_PER_SOURCE, READER_WINDOW, run_pipeline

pytestmark = pytest.mark.slow

READ = ["none", "golden", "tfidf", "bm25", "knn", "dpr", "mdr", "dpr_trained", "mdr_trained",
        "kgp_tfidf", "kgp_random", "kgp_encoder", "kgp_mdr",
        "kgp_chat", "ircot",  # kgp_t5 is skipped: no local checkpoint
        "kgp_no_llm", "kgp_encoder_dense_seeds", "kgp", "kgp_ppr",
        "ewek", "ewek_web", "ewek_kg",       # EWEK-QA and its web-only / KG-only ablations
        "holmes", "holmes_no_qualifiers", "holmes_base", "holmes_base_docs"]
SOURCES = ["hotpotqa", "musique", "2wikimultihopqa"]


def _latest(project: Path, relative: str) -> pd.DataFrame:
    folder = project / relative
    versions = sorted(p for p in folder.iterdir() if p.is_dir())
    return pd.read_parquet(versions[-1] / folder.name)


def test_table1_compares_every_method_on_the_same_questions(project_run):
    table1 = _latest(project_run, "data/08_reporting/qa_table1.parquet")
    assert table1["method"].tolist() == READ
    for source in SOURCES:
        for metric in ("hits1", "em", "f1"):
            assert table1[f"{source}/{metric}"].between(0, 100).all()
    golden = table1.set_index("method").loc["golden"]
    for source in SOURCES:
        if golden[f"{source}/f1"] > 0:
            assert golden[f"{source}/f1_vs_golden"] == pytest.approx(1.0)
    assert (table1["questions"] == QA_PER_SOURCE * len(SOURCES)).all()
    table2 = _latest(project_run, "data/08_reporting/qa_table2.parquet")
    assert table2["method"].tolist() == ["kgp_random", "kgp_tfidf", "kgp_encoder", "kgp_mdr",
                                         "kgp_chat"]


def test_scores_recompute_from_the_answers(project_run):
    scores = _latest(project_run, "data/07_model_output/qa_scores.parquet")
    questions = _latest(project_run, "data/02_intermediate/qa_questions.parquet")
    golds = dict(zip(questions["question_id"], questions["answers"].map(list)))
    for row in scores.itertuples():
        assert row.em == exact_match(row.prediction, golds[row.question_id])
        assert row.f1 == pytest.approx(f1_score(row.prediction, golds[row.question_id]))
    assert not scores["failed"].any()
    # given the Golden contexts, the reader saw every supporting passage unless one was cut
    golden = scores[scores["method"] == "golden"].set_index("question_id")
    answers = _latest(project_run, "data/07_model_output/answers_golden.parquet")
    uncut = answers.loc[answers["n_cut"] == 0, "question_id"]
    assert len(uncut) > 0 and (golden.loc[uncut, "context_sp_recall"] == 1.0).all()
    assert (scores.loc[scores["method"] == "none", "n_contexts"] == 0).all()


def test_prompts_fit_the_window_by_cutting_the_lowest_ranked_passages(project_run):
    answers = _latest(project_run, "data/07_model_output/answers_bm25.parquet")
    retrieved = _latest(project_run, "data/07_model_output/retrieved_bm25.parquet")
    assert (answers["n_cut"] > 0).all()  # 30 passages never fit the small window
    assert (answers["prompt_tokens"] <= READER_WINDOW).all()
    for a in answers.itertuples():
        ranked = retrieved[retrieved["question_id"] == a.question_id].sort_values("rank")
        ranked = ranked["passage_id"].tolist()
        assert list(a.context_ids) == ranked[:a.n_contexts]   # the top of the ranking is kept
        assert list(a.cut_ids) == ranked[a.n_contexts:]       # the tail is cut, and recorded


def test_costs_count_the_retrievers_llm_calls(project_run):
    costs = _latest(project_run, "data/08_reporting/reader_costs.parquet").set_index(
        ["source", "method"])
    assert (costs.xs("bm25", level="method")["llm_calls"] == 1).all()
    assert (costs.xs("ircot", level="method")["llm_calls"] > 1).all()
    assert (costs.xs("kgp_chat", level="method")["llm_calls"] > 1).all()
    assert (costs["prompt_tokens"] > 0).all()


def test_each_scored_answer_says_what_ran_and_counts_its_llm_calls(project_run):
    """``ran_as`` and ``llm_calls`` reach the per-question scores (the results store's rows):
    the retrieval methods' options as configured, EWEK-QA's quote order as its guard decided,
    HOLMES' extractor and pool; the reader's one call plus the retriever's LLM calls."""
    scores = _latest(project_run, "data/07_model_output/qa_scores.parquet")
    ran_as = scores.groupby("method")["ran_as"].agg(set).to_dict()
    assert ran_as["bm25"] == {"bm25"} and ran_as["kgp_tfidf"] == {"kgp"}   # its defaults
    assert ran_as["kgp_mdr"] == {"kgp agent.kind=encoder,agent.model=trained:mdr"}
    training = _latest(project_run, "data/06_models/ewek_training.parquet")
    order = ("bm25 order (rerank guard fired)" if training["guard_fired"].iloc[0]
             else "cross-encoder order")
    assert ran_as["ewek_web"] == {f"quotes={order},evidence=minilm spans"}
    assert ran_as["ewek_kg"] == {"kg=toge,facts=dependency"}
    assert ran_as["holmes_base_docs"] == {"base_docs documents=own"}
    assert ran_as["holmes_no_qualifiers"] == {
        "holmes qualifiers=False facts=dependency,question=parse documents=own"}
    calls = scores.set_index(["method", "question_id"])["llm_calls"]
    assert (calls.loc["bm25"] == 1).all() and (calls.loc["ewek_web"] == 1).all()
    retrieved = _latest(project_run, "data/07_model_output/retrieved_ircot.parquet")
    ircot = retrieved.drop_duplicates("question_id").set_index("question_id")["calls"]
    assert (calls.loc["ircot"] == 1 + ircot.loc[calls.loc["ircot"].index]).all()
    cites = scores[scores["cited"].notna()]
    assert set(cites["method"]) == {"ewek", "ewek_web", "ewek_kg"}


def test_a_rerun_of_the_reader_makes_no_llm_call(project_run):
    run_pipeline(project_run, "read", tags=["read"])
    for method in ("golden", "kgp_chat"):
        answers = _latest(project_run, f"data/07_model_output/answers_{method}.parquet")
        assert answers["cached"].all()

