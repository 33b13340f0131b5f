"""The typed parameters: the shipped YAML validates, and every mistake is a ParameterError that
names the key, before any node runs."""
from __future__ import annotations

import copy

import pytest
import yaml

from kgp_kedro.config import ParameterError
from kgp_kedro.pipelines.parameter_tree import parse_method, parse_variant, validate_parameters
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.retrievers import Requirements
from tests.conftest import ROOT


def shipped() -> dict:
    """conf/base/parameters_*.yml merged as Kedro merges them: one top-level block per file."""
    raw: dict = {}
    for path in sorted((ROOT / "conf" / "base").glob("parameters_*.yml")):
        blocks = yaml.safe_load(path.read_text()) or {}
        assert not set(blocks) & set(raw), f"{path.name} repeats a top-level block"
        raw.update(blocks)
    return raw


@pytest.fixture
def raw():
    return copy.deepcopy(SHIPPED)


SHIPPED = shipped()


def _error(raw) -> ParameterError:
    with pytest.raises(ParameterError) as info:
        validate_parameters(raw)
    return info.value


def test_the_shipped_parameters_validate():
    params = validate_parameters(SHIPPED)
    assert set(SHIPPED) == {"ingest", "passages", "embed", "kg", "kg_quality", "retrieve",
                            "pooled", "retrieval_quality", "llm", "read", "score", "report",
                            "ewek", "holmes", "pipelines", "train", "dask", "ask"}
    assert [s.dataset for s in params.ingest.sources] == ["hotpotqa", "musique",
                                                          "2wikimultihopqa"]
    assert list(params.variants) == ["tfidf", "knn_st", "tagme"]
    tfidf = params.variants["tfidf"]
    assert [label for label, _ in tfidf.settings] == ["n_kw=1", "n_kw=3", "n_kw=5", "n_kw=10",
                                                      "n_kw=20"]
    assert [s.n_kw for _, s in tfidf.settings] == [1, 3, 5, 10, 20]
    assert params.variants["knn_st"].embeddings == "minilm"
    assert params.variants["knn_st"].params.metric == "cosine"
    assert params.graph_setting == "prior_threshold=0.8"
    assert list(params.methods) == list(SHIPPED["retrieve"]["methods"])
    assert params.methods["kgp_encoder"].requirements == Requirements(graph=True,
                                                                      embeddings=True)
    assert params.methods["ircot"].requirements == Requirements(llm=True)
    assert params.methods["bm25"].params.k1 == 1.5 and params.retrieve.budget == 30
    assert params.encoder("minilm") == EncoderParams()
    assert params.pooled_graph.builder.name == "knn"


def test_a_sweep_value_that_is_not_a_count(raw):
    for bad in ("five", 2.7):
        raw["kg"]["variants"]["tfidf"]["sweep"]["n_kw"] = [1, bad]
        error = _error(raw)
        assert error.key == "kg.variants.tfidf.sweep.n_kw[1]"
        assert str(error).startswith("kg.variants.tfidf.sweep.n_kw[1]: Input should be")
        assert repr(bad) in str(error)


def test_a_misspelled_option_of_a_method(raw):
    raw["retrieve"]["methods"]["bm25"]["k_1"] = 1.2
    error = _error(raw)
    assert error.key == "retrieve.methods.bm25"
    assert "retrieve.methods.bm25.k_1: Extra inputs are not permitted" in str(error)


def test_an_unknown_agent_kind(raw):
    raw["retrieve"]["methods"]["kgp_tfidf"]["agent"]["kind"] = "tfidff"
    error = _error(raw)
    assert error.key == "retrieve.methods.kgp_tfidf.agent.kind"
    assert "retrieve.methods.kgp_tfidf.agent.kind: unknown traversal agent 'tfidff'" in str(error)


def test_a_misspelled_agent_option(raw):
    raw["retrieve"]["methods"]["kgp_random"]["agent"]["sede"] = 1
    error = _error(raw)
    assert "retrieve.methods.kgp_random.agent" in str(error) and "agent.sede" in str(error)


def test_an_unknown_builder(raw):
    raw["kg"]["variants"]["tfidf"]["builder"] = "tfidff"
    error = _error(raw)
    assert error.key == "kg.variants.tfidf.builder"
    assert "unknown KG builder 'tfidff'" in str(error) and "tfidf" in error.reason


@pytest.mark.parametrize("limit", ["2", 1.5, True, -1])
def test_a_source_limit_that_is_not_a_count(raw, limit):
    raw["ingest"]["sources"][0]["limit"] = limit
    error = _error(raw)
    assert error.key == "ingest"
    assert "ingest.sources[0].limit" in str(error) and repr(limit) in str(error)


def test_a_source_limit_that_is_a_count_or_null(raw):
    raw["ingest"]["sources"][0]["limit"] = 2
    raw["ingest"]["sources"][1]["limit"] = 0
    params = validate_parameters(raw)
    assert [s.limit for s in params.ingest.sources] == [2, 0, None]


def test_a_pooled_method_that_is_not_configured(raw):
    raw["pooled"]["methods"].append("bm26")
    error = _error(raw)
    assert error.key == f"pooled.methods[{len(raw['pooled']['methods']) - 1}]"
    assert "'bm26' is not a retrieve.methods entry" in str(error)


def test_a_graph_setting_that_is_not_built(raw):
    raw["retrieve"]["graph"]["setting"] = {"prior_threshold": 0.7}
    error = _error(raw)
    assert error.key == "retrieve.graph.setting"
    assert "prior_threshold=0.7 is not among the settings built for kg.variants.tagme" \
        in str(error)
    raw["retrieve"]["graph"]["setting"] = {"n_kw": 10}   # not a hyperparameter swept there
    assert _error(raw).key == "retrieve.graph.setting"
    raw["retrieve"]["graph"] = {"variant": "tfidf", "setting": {"n_kw": 10}}
    assert validate_parameters(raw).graph_setting == "n_kw=10"


def test_a_figure_metric_that_is_not_a_table1_metric(raw):
    raw["report"]["figure_metric"] = "context_sp_recall"     # a summary-only metric
    error = _error(raw)
    assert error.key == "report.figure_metric"
    assert "'context_sp_recall' is not a Table 1 metric (em, f1, acc, hits1, struct_em" \
        in str(error)
    raw["report"]["figure_metric"] = "hits1"
    assert validate_parameters(raw).report.figure_metric == "hits1"


def test_a_graph_variant_that_is_not_configured(raw):
    raw["retrieve"]["graph"]["variant"] = "tagmee"
    error = _error(raw)
    assert error.key == "retrieve.graph.variant" and "'tagmee'" in str(error)


def test_embeddings_that_no_encoder_makes(raw):
    raw["retrieve"]["embeddings"] = "mpnet"
    error = _error(raw)
    assert error.key == "retrieve.embeddings"
    assert "'mpnet' is not an embed.encoders entry" in str(error)
    raw["retrieve"]["embeddings"] = "minilm"
    raw["kg"]["variants"]["knn_st"]["embeddings"] = "mpnet"
    assert _error(raw).key == "kg.variants.knn_st.embeddings"


def test_an_unknown_top_level_block(raw):
    raw["retreive"] = {"budget": 10}
    error = _error(raw)
    assert error.key == "retreive" and "unknown parameter block" in str(error)


def test_a_misspelled_key_of_a_fixed_block(raw):
    raw["kg_quality"] = {"seed": 5}
    error = _error(raw)
    assert error.key == "kg_quality" and "kg_quality.seed" in str(error)


def test_a_sweep_of_something_that_is_not_a_hyperparameter():
    with pytest.raises(ParameterError) as info:
        parse_variant("tfidf", {"builder": "tfidf", "sweep": {"k": [1, 2]}}, "kg.variants.tfidf")
    assert info.value.key == "kg.variants.tfidf.sweep.k"


def test_a_method_block_needs_a_registered_method():
    with pytest.raises(ParameterError) as info:
        parse_method("x", {"method": "bm26"}, "retrieve.methods.x")
    assert info.value.key == "retrieve.methods.x.method"
    with pytest.raises(ParameterError) as info:
        parse_method("x", {"k1": 1.2}, "retrieve.methods.x")
    assert info.value.key == "retrieve.methods.x"


@pytest.mark.parametrize("path, value, full_key", [
    (("kg", "variants", "tfidf", "sweep", "n_kw"), [1, "five"], "kg.variants.tfidf.sweep.n_kw[1]"),
    (("retrieve", "methods", "kgp_tfidf", "agent", "kind"), "tfidff",
     "retrieve.methods.kgp_tfidf.agent.kind"),
])
def test_the_message_names_the_full_key_of_the_bad_value(raw, path, value, full_key):
    block = raw
    for part in path[:-1]:
        block = block[part]
    block[path[-1]] = value
    assert full_key in str(_error(raw))


ENVS = sorted(p.name for p in (ROOT / "conf").iterdir()
              if p.is_dir() and p.name not in ("base", "local"))


@pytest.mark.parametrize("env", ENVS)
def test_every_shipped_env_validates_and_shapes_the_pipelines(env):
    """`kedro run --env <env>` for every env under conf/: its parameters, merged over
    conf/base as the session merges them, validate, and every chain composes."""
    from kgp_kedro import settings
    from kgp_kedro.pipelines.chains import CHAINS, build_pipelines

    loader = settings.CONFIG_LOADER_CLASS(conf_source=str(ROOT / "conf"), env=env,
                                          **settings.CONFIG_LOADER_ARGS)
    raw = loader["parameters"]
    pipelines = build_pipelines(raw)
    assert set(CHAINS) <= set(pipelines)
    # what the env sets is what the pipelines run: each configured method has its retrieve node
    retrieved = {d for d in pipelines["retrieve"].all_outputs() if d.startswith("retrieved_")}
    assert retrieved == {f"retrieved_{m}" for m in raw["retrieve"]["methods"]}


def test_a_holmes_or_ewek_method_may_not_reuse_another_stages_answer_table(raw):
    raw["ewek"]["methods"]["bm25"] = {"kg": "toge", "web": True}
    assert _error(raw).key == "ewek.methods.bm25"
    raw = copy.deepcopy(SHIPPED)
    raw["holmes"]["methods"]["ewek_web"] = {"kind": "base"}
    assert _error(raw).key == "holmes.methods.ewek_web"
    raw = copy.deepcopy(SHIPPED)
    raw["holmes"]["encoder"] = "nope"
    assert "not an embed.encoders entry" in str(_error(raw))


def test_the_default_pipeline_is_the_chains_pipelines_default_names(raw):
    """`kedro run` with no --pipelines runs ``pipelines.default``: the demo env's names
    retrieval_quality, so `kedro run --env demo` runs the sweeps too; base's does not."""
    from kgp_kedro import settings
    from kgp_kedro.pipelines.chains import build_pipelines

    base = build_pipelines(raw)
    assert set(base["__default__"].nodes) == set((base["kg_quality"] + base["report"]).nodes)
    assert not set(base["retrieval_quality"].nodes) <= set(base["__default__"].nodes)
    demo = build_pipelines(settings.CONFIG_LOADER_CLASS(
        conf_source=str(ROOT / "conf"), env="demo", **settings.CONFIG_LOADER_ARGS)["parameters"])
    assert set(demo["retrieval_quality"].nodes) <= set(demo["__default__"].nodes)
    assert set(demo["report"].nodes) <= set(demo["__default__"].nodes)


def test_a_default_pipeline_that_is_not_a_chain(raw):
    from kgp_kedro.pipelines.chains import build_pipelines

    raw["pipelines"] = {"default": ["kg_quality", "reports"]}
    with pytest.raises(ParameterError) as info:
        build_pipelines(raw)
    assert info.value.key == "pipelines.default[1]"
    assert "'reports' is not a pipeline" in str(info.value)


def _ask_env(runtime_params: dict | None = None) -> dict:
    from kgp_kedro import settings

    return settings.CONFIG_LOADER_CLASS(conf_source=str(ROOT / "conf"), env="ask",
                                        runtime_params=runtime_params,
                                        **settings.CONFIG_LOADER_ARGS)["parameters"]


def test_the_ask_env_takes_a_folder_and_questions_as_scalar_params(tmp_path):
    """`--env ask --params ask.folder=..,ask.questions=..` (or ask.question=..): the folder is
    the run's one ingest source, asked those questions; `kedro run --env ask` runs the ask
    chain (one KG for the router's structural layer, kgp and BM25, no read / score / report),
    kgp the entity walk with the rule router."""
    from kgp_kedro.pipelines.chains import build_pipelines

    asked = tmp_path / "questions.txt"
    asked.write_text("Who?\n")
    raw = _ask_env({"ask": {"folder": str(tmp_path), "questions": str(asked)}})
    assert raw["ingest"]["sources"] == [{"dataset": "documents", "path": str(tmp_path),
                                         "questions": str(asked), "limit": None, "name": None}]
    pipelines = build_pipelines(raw)
    default = pipelines["__default__"]
    assert set(default.nodes) == set(pipelines["ask"].nodes)
    assert {"ask_report_md", "ask_report_html", "retrieved_kgp",
            "retrieved_bm25"} <= default.all_outputs()
    assert raw["ask"]["method"] == "kgp"
    assert raw["retrieve"]["methods"]["kgp"]["method"] == "entity_walk"
    assert raw["retrieve"]["methods"]["kgp"]["routing"] == "rules"
    assert not {d for d in default.all_outputs() if d.startswith(("answers_", "qa_scores"))}
    one = _ask_env({"ask": {"folder": str(tmp_path), "question": "Who, exactly?"}})
    assert one["ingest"]["sources"][0]["questions"] == ["Who, exactly?"]


@pytest.mark.parametrize("ask,key", [({"questions": "q.txt"}, "ask.folder"),
                                     ({"folder": "no/such/folder"}, "ask.folder"),
                                     ({"folder": ".", "questions": "no/such.txt"},
                                      "ask.questions"),
                                     ({"folder": ".", "question": "x",
                                       "questions": str(ROOT / "pyproject.toml")},
                                      "ask.question"),
                                     ({"folder": ".", "method": "nope"}, "ask.method"),
                                     ({"folder": ".", "sanity": "nope"}, "ask.sanity")])
def test_ask_mistakes_name_the_key_when_the_parameters_are_loaded(ask, key):
    """The config loader applies ``ask.folder`` to the merged tree, so a mistake in any ask
    key stops the loading, naming the key."""
    with pytest.raises(ParameterError) as info:
        _ask_env({"ask": ask})
    assert info.value.key == key


def test_a_store_only_run_needs_a_store(raw):
    raw["llm"]["store_only"] = True
    raw["llm"]["store"] = None
    error = _error(raw)
    assert error.key == "llm" and "store_only" in str(error)
    raw["llm"]["store"] = "results/llm"
    assert validate_parameters(raw).llm.store_only
