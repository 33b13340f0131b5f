"""``kedro run --pipeline=kg_quality`` and ``--pipeline=retrieval_quality`` on a handful of real
questions of every source (the session's project run)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from kgp_kedro.evaluation import neighbourhood_scores
from kgp_kedro.graphs import Graph
from tests.projects import N_QUESTIONS, QA_PER_SOURCE, make_project, run_pipeline

pytestmark = pytest.mark.slow


def _latest(project: Path, relative: str) -> Path:
    """The newest version of a versioned dataset."""
    folder = project / relative
    versions = sorted(p for p in folder.iterdir() if p.is_dir())
    return versions[-1] / folder.name


def test_summary_has_every_source_variant_and_setting(project_run):
    summary = pd.read_parquet(_latest(project_run,
                                      "data/07_model_output/kg_quality_summary.parquet"))
    for column in ["source", "variant", "setting", "avg_neighbors", "sf_em", "precision",
                   "recall", "density"]:
        assert column in summary.columns
    assert set(summary["source"]) == {"hotpotqa", "musique", "2wikimultihopqa"}
    assert set(summary["variant"]) == {"tfidf", "knn_st", "tagme"}
    per_cell = summary.groupby(["source", "variant"])["setting"].nunique()
    assert (per_cell >= 3).all()
    assert summary["sf_em"].between(0, 1).all() and summary["precision"].between(0, 1).all()
    assert (summary["n_questions"] == N_QUESTIONS).all()
    # denser KNN graphs cover at least as much: k nearest neighbours are nested in k+1
    knn = summary[summary["variant"] == "knn_st"].copy()
    knn["k"] = knn["setting"].str.split("=").str[1].astype(int)
    for _, group in knn.groupby("source"):
        group = group.sort_values("k")
        assert group["recall"].is_monotonic_increasing
        assert group["avg_neighbors"].is_monotonic_increasing


def test_per_question_rows_recompute_from_the_edge_tables(project_run):
    project = project_run
    per_q = pd.read_parquet(_latest(project, "data/07_model_output/kg_quality_per_question.parquet"))
    edges = pd.read_parquet(_latest(project, "data/05_model_input/kg_edges_tfidf.parquet"))
    nodes = pd.read_parquet(_latest(project, "data/05_model_input/kg_nodes_tfidf.parquet"))
    passages = pd.read_parquet(_latest(project, "data/03_primary/passages.parquet"))
    seeds = pd.read_parquet(_latest(project, "data/05_model_input/kg_seeds.parquet"))
    row = per_q[(per_q["variant"] == "tfidf")].iloc[0]
    ps = passages[passages["collection_id"] == row["collection_id"]]
    es = edges[(edges["collection_id"] == row["collection_id"]) & (edges["setting"] == row["setting"])]
    graph = Graph.from_tables(nodes[nodes["collection_id"] == row["collection_id"]], es)
    # a passage KG: its nodes are the collection's passages, in order
    assert list(graph.nodes.ids) == ps["passage_id"].tolist()
    assert set(graph.nodes.kinds) == {"passage"}
    seed_ids = seeds[seeds["question_id"] == row["question_id"]].sort_values("rank")["passage_id"]
    assert len(seed_ids) == 5
    scores = neighbourhood_scores(graph, seed_ids, ps.loc[ps["is_supporting"], "passage_id"])
    assert scores.sf_em == row["sf_em"] and scores.precision == pytest.approx(row["precision"])


def test_table3_stats_and_figure_are_written(project_run):
    stats = pd.read_parquet(_latest(project_run, "data/07_model_output/kg_stats.parquet"))
    assert {"n_docs", "n_questions", "n_passages", "n_edges", "passage_avg_words",
            "density"} <= set(stats.columns)
    hotpot = stats[stats["source"] == "hotpotqa"]
    assert (hotpot["n_questions"] == N_QUESTIONS).all()
    # a HotpotQA collection: its ~10 paragraphs plus 3 negatives
    assert hotpot["n_docs"].between(5, 13).all()
    figure = json.loads(_latest(project_run,
                                "data/08_reporting/kg_quality_figure.json").read_text())
    names = {trace["name"] for trace in figure["data"]}
    assert {"tfidf SF-EM", "knn_st PRECISION", "tagme SF-EM"} <= names
    assert _latest(project_run, "data/08_reporting/kg_quality_figure.html").stat().st_size > 1000


def test_a_malformed_source_fails_naming_the_record_and_writes_nothing(tmp_path):
    from kedro.framework.session import KedroSession  # noqa: F401 (kedro must import)

    project = make_project(tmp_path)
    bad = project / "data/01_raw/musique/bad.jsonl"
    lines = (project / "data/01_raw/musique/musique_ans_v1.0_dev_sample181.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    del record["paragraphs"][0]["paragraph_text"]
    bad.write_text("\n".join([lines[0], json.dumps(record)]) + "\n")
    params = {"ingest": {"sources": [{"dataset": "musique", "path": str(bad), "limit": None}],
                         "negatives_per_question": 1, "seed": 1, "qa_questions_per_source": 1}}
    import yaml
    (project / "conf/local/parameters.yml").write_text(yaml.safe_dump(params))
    with pytest.raises(Exception, match=r"bad\.jsonl: line 2 \(id [^)]+\): paragraph 0 lacks paragraph_text"):
        run_pipeline(project, "ingest")
    assert not list((project / "data/02_intermediate").rglob("*.parquet"))


def test_retrieval_quality_compares_every_offline_method(project_run):
    summary = pd.read_parquet(_latest(project_run,
                                      "data/07_model_output/retrieval_summary.parquet"))
    assert {"source", "scope", "method", "k", "recall", "precision", "sp_em", "latency_ms",
            "calls"} <= set(summary.columns)
    methods = set(summary["method"])
    assert methods == {"none", "golden", "tfidf", "bm25", "knn", "dpr", "mdr", "kgp_tfidf",
                       "kgp_random", "kgp_encoder", "kgp_chat", "ircot", "kgp_no_llm",
                       "kgp_encoder_dense_seeds", "kgp", "kgp_ppr", "dpr_trained",
                       "mdr_trained", "kgp_mdr"}  # kgp_t5: no checkpoint
    at30 = summary[summary["k"] == 30].set_index(["source", "method"])
    assert (at30.xs("golden", level="method")["sp_em"] == 1.0).all()
    assert (at30.xs("none", level="method")["recall"] == 0.0).all()
    llm_driven = summary["method"].isin(["kgp_chat", "ircot"])  # run on the reader's questions
    assert (summary.loc[~llm_driven, "n_questions"] == N_QUESTIONS).all()
    assert (summary.loc[llm_driven, "n_questions"] == QA_PER_SOURCE).all()
    assert (at30.xs("ircot", level="method")["calls"] >= 1).all()
    retrieved = pd.read_parquet(_latest(project_run,
                                        "data/07_model_output/retrieved_kgp_tfidf.parquet"))
    # KGP in mode paper (§8.2): at most 30 reasoning paths from 30 // 3 = 10 TF-IDF seeds, each
    # a seed and one of its agent's top neighbours (a seed without neighbours stays alone)
    per_q = retrieved.groupby("question_id")
    assert (per_q.size() <= 30).all()
    steps = retrieved["path"].str.split(" > ")
    assert (steps.str[-1] == retrieved["passage_id"]).all()
    assert (steps.str.len() == retrieved["hop"] + 1).all()
    assert retrieved["hop"].isin([0, 1]).all() and (retrieved["hop"] == 1).any()
    assert (retrieved.assign(seed=steps.str[0]).groupby("question_id")["seed"].nunique()
            <= 10).all()
    assert not steps.map(lambda p: len(set(p)) < len(p)).any()  # a path never repeats a passage


def test_branching_factor_sweep(project_run):
    """Figure 7(a-b)'s table."""
    sweep = pd.read_parquet(_latest(project_run,
                                    "data/07_model_output/branching_sweep.parquet"))
    # every LLM-free KGP method but kgp_mdr, whose trained encoder the sweep does not resolve
    assert set(sweep["method"]) == {"kgp_tfidf", "kgp_random", "kgp_encoder",
                                    "kgp_encoder_dense_seeds", "kgp_ppr"}
    assert set(sweep["branching_factor"]) == {1, 2, 3, 5, 10}
    assert (sweep["k"] == 30).all() and sweep["sp_em"].between(0, 1).all()
    assert set(sweep["unit"]) == {"passage", "document"}
    assert (sweep.groupby(["source", "method", "unit"]).size() == 5).all()
    assert (sweep["n_questions"] == N_QUESTIONS).all()


def test_pooled_setting_shares_one_collection_per_source(project_run):
    """All questions of a source over one collection; dense search and the KNN KG via faiss."""
    import yaml

    pooled_methods = yaml.safe_load((project_run / "conf/base/parameters_pooled.yml")
                                    .read_text())["pooled"]["methods"]
    passages = pd.read_parquet(_latest(project_run, "data/03_primary/passages.parquet"))
    pooled = pd.read_parquet(_latest(project_run, "data/05_model_input/pooled_passages.parquet"))
    assert set(pooled["collection_id"]) == {f"{s}/pooled" for s in passages["source"].unique()}
    for source, group in pooled.groupby("source"):
        assert len(group) == passages.loc[passages["source"] == source, "passage_id"].nunique()
    edges = pd.read_parquet(_latest(project_run, "data/05_model_input/kg_edges_pooled.parquet"))
    assert (edges["src"] != edges["dst"]).all()
    out_degree = edges.groupby(["collection_id", "src"]).size()
    assert (out_degree == 10).all()  # pooled.graph.k neighbours each
    summary = pd.read_parquet(_latest(project_run,
                                      "data/07_model_output/retrieval_summary.parquet"))
    in_pool = summary[summary["scope"] == "pooled"]
    assert set(in_pool["method"]) == set(pooled_methods)
    assert (in_pool["n_questions"] == N_QUESTIONS).all()
    assert in_pool["recall"].between(0, 1).all()
    retrieved = pd.read_parquet(_latest(project_run,
                                        "data/07_model_output/retrieved_pooled_kgp_encoder.parquet"))
    assert retrieved["collection_id"].str.endswith("/pooled").all()
    assert set(retrieved["passage_id"]) <= set(pooled["passage_id"])
    assert retrieved.groupby("question_id").size().between(10, 30).all()


def test_collection_size_sweep(project_run):
    """Figure 7(c)'s table: bigger collections, one row per source, method and size."""
    sweep = pd.read_parquet(_latest(project_run,
                                    "data/07_model_output/collection_size_sweep.parquet"))
    assert set(sweep["method"]) == {"bm25", "dpr", "kgp_tfidf", "kgp_encoder"}
    assert set(sweep["unit"]) == {"passage", "document"}
    sweep = sweep[sweep["unit"] == "passage"]
    assert set(sweep["negatives"]) == {0, 5, 10, 20, 40}
    assert sweep["recall"].between(0, 1).all() and (sweep["k"] == 30).all()
    for _, group in sweep.groupby(["source", "method"]):
        group = group.sort_values("negatives")
        assert group["documents"].is_monotonic_increasing
        assert group["passages"].is_monotonic_increasing
    # sizes are per source: a MuSiQue question comes with 20 paragraphs, a HotpotQA one with 10
    own_size = sweep[sweep["negatives"] == 0].groupby("source")["documents"].first()
    assert own_size["musique"] > own_size["hotpotqa"]
    # with no negatives the collection is the question's own documents: BM25 at 30 passages
    # then misses little
    own = sweep[(sweep["negatives"] == 0) & (sweep["method"] == "bm25")]
    assert (own["recall"] >= sweep[(sweep["negatives"] == 40) & (sweep["method"] == "bm25")]
            .set_index("source").loc[own["source"], "recall"].to_numpy()).all()
