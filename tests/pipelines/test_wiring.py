"""How the stages are wired: the session's env and params shape what runs, bad parameters stop
a run before any node, a stage runs alone on an in-memory catalog, and a new KG builder,
retriever and traversal agent are each one module plus one YAML block."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from kgp_kedro.retrievers.agents import AGENTS, TraversalAgent
from kgp_kedro.config import ParameterError, Params
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.corpus.sources import SKIPPED_COLUMNS
from kgp_kedro.corpus.schema import DOCUMENT_COLUMNS, QUESTION_COLUMNS
from kgp_kedro.graphs import BUILDERS, Edges, Graph, GraphBuilder, Nodes
from kgp_kedro.pipelines.chains import build_pipelines
from kgp_kedro.pipelines.in_memory import run_in_memory
from kgp_kedro.retrievers import RETRIEVERS, Retriever, Visit
from tests.conftest import ENCODER_DTYPE, ROOT
from tests.projects import make_project, run_pipeline


def base_parameters() -> dict:
    """conf/base's parameters, the MiniLM encoder in the suite's dtype
    (``tests.conftest.ENCODER_DTYPE``)."""
    raw: dict = {}
    for path in sorted((ROOT / "conf" / "base").glob("parameters_*.yml")):
        raw.update(yaml.safe_load(path.read_text()))
    if ENCODER_DTYPE != "auto":
        raw["embed"]["encoders"]["minilm"]["dtype"] = ENCODER_DTYPE
    return raw


def small_sources(limit: int = 2) -> list[dict]:
    return [{"dataset": "hotpotqa", "limit": limit,
             "path": "data/01_raw/hotpotqa/hotpot_dev_distractor_v1_sample300.json"}]


SMALL_ENV = {
    "ingest": {"sources": small_sources(), "negatives_per_question": 2, "seed": 42,
               "qa_questions_per_source": 1},
    "kg": {"variants": {"tfidf": {"builder": "tfidf", "sweep": {"n_kw": [2, 5]}}}},
    "retrieve": {"graph": {"variant": "tfidf", "setting": {"n_kw": 2}},
                 "methods": {"bm25": {"method": "bm25"}, "kgp_tfidf": {"method": "kgp"}}},
    "pooled": {"methods": ["bm25"]},
    "report": {"table2_methods": ["kgp_tfidf"]},
    "retrieval_quality": {"collection_size": {"methods": ["bm25"]}},
}


def _versions(project: Path, relative: str) -> list[Path]:
    folder = project / relative
    return sorted(folder.glob("*/" + folder.name)) if folder.exists() else []


def _kedro(project: Path, *args: str) -> subprocess.CompletedProcess:
    kedro = str(Path(sys.executable).with_name("kedro"))
    env = dict(os.environ, KEDRO_DISABLE_TELEMETRY="1", HF_HUB_OFFLINE="1")
    env.pop("KEDRO_ENV", None)
    return subprocess.run([kedro, "run", *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.slow
def test_env_and_params_change_what_runs_exactly_as_they_say(tmp_path, feature_cache):
    project = make_project(tmp_path, feature_cache=feature_cache)
    (project / "conf" / "small").mkdir()
    (project / "conf" / "small" / "parameters.yml").write_text(yaml.safe_dump(SMALL_ENV))
    # --env small configures one KG variant: only its tables are built, and no node asks for
    # the base env's variants or methods
    done = _kedro(project, "--env", "small", "--pipelines", "kg")
    assert done.returncode == 0, done.stderr[-3000:]
    edges = _versions(project, "data/small/05_model_input/kg_edges_tfidf.parquet")
    assert len(edges) == 1
    assert set(pd.read_parquet(edges[0])["setting"]) == {"n_kw=2", "n_kw=5"}
    assert not _versions(project, "data/small/05_model_input/kg_edges_tagme.parquet")
    assert not _versions(project, "data/small/05_model_input/kg_edges_knn_st.parquet")
    # --params overrides a swept value in that env (and the graph KGP uses, which must be one of
    # the settings built): the run builds exactly that setting
    done = _kedro(project, "--env", "small", "--pipelines", "kg",
                  "--params", "kg.variants.tfidf.sweep.n_kw=3,retrieve.graph.setting.n_kw=3")
    assert done.returncode == 0, done.stderr[-3000:]
    newest = _versions(project, "data/small/05_model_input/kg_edges_tfidf.parquet")[-1]
    assert set(pd.read_parquet(newest)["setting"]) == {"n_kw=3"}
    # --params that break a cross-reference fail before any node, naming the key
    done = _kedro(project, "--env", "small", "--pipelines", "kg",
                  "--params", "retrieve.graph.setting.n_kw=4")
    assert done.returncode != 0
    assert "retrieve.graph.setting" in done.stderr + done.stdout


@pytest.mark.slow
def test_runtime_params_of_a_session_add_a_method(tmp_path, feature_cache):
    project = make_project(tmp_path, SMALL_ENV, feature_cache)
    extra = {"retrieve": {"methods": {"tfidf": {"method": "tfidf"}}}}
    run_pipeline(project, "retrieve", runtime_params=extra)
    for method in ("bm25", "kgp_tfidf", "tfidf"):
        assert _versions(project, f"data/07_model_output/retrieved_{method}.parquet"), method


def test_a_bad_parameter_stops_the_run_before_any_node_naming_the_key(tmp_path):
    bad = copy.deepcopy(SMALL_ENV)
    bad["kg"]["variants"]["tfidf"]["sweep"]["n_kw"] = [2, "five"]
    project = make_project(tmp_path, bad)
    with pytest.raises(ParameterError, match=r"kg\.variants\.tfidf\.sweep\.n_kw\[1\]: Input should be a valid integer \(got .five.\)"):
        run_pipeline(project, "kg_quality")
    assert not any((project / "data").rglob("*.parquet")) or all(
        "01_raw" in str(p) for p in (project / "data").rglob("*.parquet"))


def test_each_stage_is_one_namespace_and_datasets_keep_their_catalog_names():
    pipelines = build_pipelines(base_parameters())
    stages = {n.namespace.split(".")[0] for n in pipelines["retrieval_quality"].nodes}
    assert stages == {"ingest", "passages", "embed", "kg", "train", "retrieve", "pooled",
                      "retrieval_quality"}
    assert {n.name for n in pipelines["report"].only_nodes_with_namespaces(
        ["read"]).nodes} == {f"read.{m}" for m in base_parameters()["retrieve"]["methods"]}
    outputs = pipelines["__default__"].all_outputs()
    assert {"passages", "kg_edges_tagme", "passage_mentions_tagme", "retrieved_kgp_tfidf",
            "qa_table1"} <= outputs
    assert not [d for d in outputs if "." in d]  # no dataset renamed by a namespace


def test_a_method_that_calls_the_llm_or_is_asked_to_retrieves_for_the_qa_questions_only():
    params = base_parameters()
    params["retrieve"]["methods"].update({
        "kgp_chat": {"method": "kgp", "agent": {"kind": "chat"}},
        "kgp_t5": {"method": "kgp", "agent": {"kind": "generator", "model": "trained:t5"}},
        "kgp_t5_qa": {"method": "kgp", "agent": {"kind": "generator", "model": "trained:t5",
                                                 "questions": "qa"}}})
    stage = build_pipelines(params)["retrieve"].only_nodes_with_namespaces(["retrieve"])
    read = {n.name.split(".")[1]: n.inputs[0] for n in stage.nodes
            if n.name.endswith(".retrieve")}
    assert {m: read[m] for m in ("kgp_tfidf", "kgp_chat", "kgp_t5", "kgp_t5_qa")} == {"kgp_tfidf": "questions", "kgp_chat": "qa_questions",
                    "kgp_t5": "questions", "kgp_t5_qa": "qa_questions"}


def test_the_ingest_stage_reads_the_raw_datasets_of_the_sources():
    """Each ``ingest.sources`` entry is the raw dataset ``raw_<source>``, an input of ingest
    (kedro-viz draws raw -> questions / own_documents / skipped_files); run in memory, the
    tables hold the first questions of the shipped file, in the stage's columns."""
    ingest = build_pipelines(base_parameters())["ingest"]
    assert {d for d in ingest.inputs() if not d.startswith("params:")} == {
        "raw_hotpotqa", "raw_musique", "raw_2wikimultihopqa"}
    assert ingest.only_nodes("ingest.combine_sources").outputs() == {
        "questions", "own_documents", "skipped_files"}

    raw = base_parameters()
    raw["ingest"] = SMALL_ENV["ingest"]
    out = run_in_memory(build_pipelines(raw)["ingest"], raw)
    path = ROOT / small_sources()[0]["path"]
    first = [r["_id"] for r in json.loads(path.read_text(encoding="utf-8"))[:2]]
    assert list(out["questions"]["question_id"]) == first
    assert list(out["questions"].columns) == QUESTION_COLUMNS
    assert list(out["own_documents"].columns) == DOCUMENT_COLUMNS
    assert set(out["own_documents"]["collection_id"]) == {f"hotpotqa/{i}" for i in first}
    assert out["skipped_files"].empty and list(out["skipped_files"].columns) == SKIPPED_COLUMNS


def test_repeated_source_names_stop_the_pipelines_being_built_naming_the_key():
    raw = base_parameters()
    raw["ingest"]["sources"] = [{**small_sources()[0], "name": "h"},
                                {**small_sources()[0], "name": "h"}]
    with pytest.raises(ParameterError, match=r"^ingest\.sources: repeated source names"):
        build_pipelines(raw)


def test_one_kg_variant_runs_alone_on_an_in_memory_catalog(hotpot_passages):
    questions, passages = hotpot_passages
    raw = base_parameters()
    kg = build_pipelines(raw)["kg"].only_nodes_with_namespaces(["kg.tfidf"])
    assert {n.name for n in kg.nodes} == {"kg.tfidf.build_graphs"}
    out = run_in_memory(kg, raw, {"passages": passages})
    nodes, edges = out["kg_nodes_tfidf"], out["kg_edges_tfidf"].to_pandas()
    assert nodes["node_id"].tolist() == passages.drop_duplicates(
        ["collection_id", "passage_id"])["passage_id"].tolist()
    assert (nodes["kind"] == "passage").all()
    assert set(edges["setting"]) == {f"n_kw={n}" for n in raw["kg"]["variants"]["tfidf"]["sweep"]["n_kw"]}
    assert set(edges["relation"]) == {"keyword"} and not edges["directed"].any()
    # denser settings keep every edge of sparser ones (keywords are nested by rank)
    pairs = {s: set(zip(g["collection_id"], g["src"], g["dst"])) for s, g in edges.groupby("setting")}
    assert pairs["n_kw=1"] <= pairs["n_kw=3"] <= pairs["n_kw=20"]


# --- a new builder, retriever and agent: one module each (here: this one) + one YAML block ---
@BUILDERS.register("toy_same_title")
class SameTitleBuilder(GraphBuilder):
    """Joins the passages of documents whose titles share their first letter."""

    class Params(Params):
        letters: int = 1

    def build(self, collection: Collection, setting: Params) -> Graph:
        keys = [t[:setting.letters].lower() for t in collection.titles]
        src, dst = zip(*[(i, j) for i in range(len(keys)) for j in range(i + 1, len(keys))
                         if keys[i] == keys[j]]) or ((), ())
        return Graph(Nodes.of_passages(collection.passage_ids, collection.texts),
                     Edges.uniform(np.asarray(src), np.asarray(dst), np.ones(len(src)),
                                   [""] * len(src), "same_letter", directed=False))


@RETRIEVERS.register("toy_first")
class FirstPassages(Retriever):
    """The collection's first passages, in order."""

    class Params(Params):
        pass

    def search(self, question: str, collection: Collection) -> list[Visit]:
        return [Visit(p, (p,), 0, 1.0) for p in collection.passage_ids[:self.budget]]


@AGENTS.register("toy_longest")
class LongestAgent(TraversalAgent):
    """Prefers long passages."""

    class Params(Params):
        pass

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        return np.asarray([len(collection.text_of[c]) for c in candidates], dtype=float)


@pytest.fixture
def toys():
    yield
    BUILDERS.unregister("toy_same_title")
    RETRIEVERS.unregister("toy_first")
    AGENTS.unregister("toy_longest")


def test_a_new_builder_retriever_and_agent_are_one_module_and_one_yaml_block(toys):
    raw = base_parameters()
    raw["ingest"] = SMALL_ENV["ingest"]
    raw["kg"]["variants"]["toy"] = {"builder": "toy_same_title", "sweep": {"letters": [1, 2]}}
    raw["retrieve"]["graph"] = {"variant": "toy", "setting": {"letters": 1}}
    raw["retrieve"]["methods"] = {"first": {"method": "toy_first"},
                                  "kgp_longest": {"method": "kgp", "agent": {"kind": "toy_longest"}}}
    raw["pooled"]["methods"] = []
    raw["report"]["table2_methods"] = ["kgp_longest"]
    raw["retrieval_quality"]["collection_size"]["methods"] = ["first"]
    pipelines = build_pipelines(raw)
    chain = (pipelines["kg_quality"] + pipelines["retrieve"]).only_nodes_with_namespaces(
        ["kg.toy", "kg_quality.toy", "retrieve.first", "retrieve.kgp_longest"])
    chain = chain + pipelines["passages"] + pipelines["kg_quality"].only_nodes(
        "kg_quality.seed_passages")
    out = run_in_memory(chain, raw)
    edges = out["kg_edges_toy"].to_pandas()
    assert set(edges["relation"]) == {"same_letter"}
    assert set(edges["setting"]) == {"letters=1", "letters=2"}
    assert len(out["kg_quality_rows_toy"]) == 2 * 2  # 2 questions x 2 settings
    first = out["retrieved_first"]
    assert (first.groupby("question_id").size() == 30).all()
    walked = out["retrieved_kgp_longest"]
    assert walked["hop"].max() >= 1  # the agent picked neighbours through the toy graph
