"""An env overrides single parameter keys of conf/base (merge_strategy soft, settings.py); the
menus kg.variants / retrieve.methods / embed.encoders are selections when an env names them."""
from __future__ import annotations

import shutil

import pytest
import yaml

from kgp_kedro import settings
from kgp_kedro.config import ParameterError
from tests.conftest import ROOT


def _parameters(tmp_path, env_yaml: dict | None, env: str = "local",
                runtime_params: dict | None = None) -> dict:
    conf = tmp_path / "conf"
    shutil.copytree(ROOT / "conf" / "base", conf / "base")
    (conf / env).mkdir(parents=True, exist_ok=True)
    if env_yaml is not None:
        (conf / env / "parameters.yml").write_text(yaml.safe_dump(env_yaml))
    loader = settings.CONFIG_LOADER_CLASS(conf_source=str(conf), env=env,
                                          runtime_params=runtime_params,
                                          **settings.CONFIG_LOADER_ARGS)
    return loader["parameters"]


def _base(block: str) -> dict:
    return yaml.safe_load((ROOT / "conf" / "base" / f"parameters_{block}.yml").read_text())[block]


def test_one_key_of_a_block_overrides_that_key_and_keeps_the_rest_of_base(tmp_path):
    params = _parameters(tmp_path, {"retrieve": {"budget": 20}, "llm": {"local": {"n_threads": 1}},
                                    "ingest": {"negatives_per_question": 3}})
    assert params["retrieve"]["budget"] == 20
    assert set(params["retrieve"]["methods"]) == set(_base("retrieve")["methods"])
    assert params["retrieve"]["graph"]["variant"] == _base("retrieve")["graph"]["variant"]
    assert params["llm"]["local"]["n_threads"] == 1
    assert params["llm"]["cache"] == _base("llm")["cache"]
    assert params["ingest"]["negatives_per_question"] == 3
    assert [s["path"] for s in params["ingest"]["sources"]] == [   # a list stays whole
        s["path"] for s in _base("ingest")["sources"]]
    assert set(params["kg"]["variants"]) == set(_base("kg")["variants"])


def test_an_env_naming_menu_entries_runs_those_each_merged_with_its_base_entry(tmp_path):
    params = _parameters(tmp_path, {
        "kg": {"variants": {"tfidf": {"sweep": {"n_kw": [2]}}}},
        "retrieve": {"graph": {"variant": "tfidf", "setting": {"n_kw": 2}},
                     "methods": {"bm25": {}, "kgp_tfidf": {"batch_size": 8}}},
        "pooled": {"methods": ["bm25"]},
        "retrieval_quality": {"collection_size": {"methods": ["bm25"]}}}, env="small")
    assert set(params["kg"]["variants"]) == {"tfidf"}
    assert params["kg"]["variants"]["tfidf"]["builder"] == "tfidf"     # from base
    assert params["kg"]["variants"]["tfidf"]["sweep"] == {"n_kw": [2]}
    assert set(params["retrieve"]["methods"]) == {"bm25", "kgp_tfidf"}
    kgp = params["retrieve"]["methods"]["kgp_tfidf"]
    assert kgp["method"] == "kgp" and kgp["agent"]["kind"] == "tfidf" and kgp["batch_size"] == 8
    assert set(params["embed"]["encoders"]) == {"minilm"}              # not named: base's


def test_runtime_params_add_to_the_envs_selection_and_to_base(tmp_path):
    extra = {"retrieve": {"methods": {"tfidf": {"method": "tfidf"}}}}
    selected = _parameters(tmp_path / "a", {"retrieve": {"methods": {"bm25": {}}},
                                            "pooled": {"methods": ["bm25"]},
                                            "retrieval_quality": {"collection_size": {
                                                "methods": ["bm25"]}}},
                           runtime_params=extra)
    assert set(selected["retrieve"]["methods"]) == {"bm25", "tfidf"}
    unselected = _parameters(tmp_path / "b", None, runtime_params=extra)
    assert set(unselected["retrieve"]["methods"]) == set(_base("retrieve")["methods"])


def test_a_soft_override_still_fails_naming_the_key(tmp_path):
    with pytest.raises(ParameterError, match=r"retrieve\.methods\.kgp_tfidf\.batch_size"):
        _parameters(tmp_path, {"retrieve": {"methods": {"kgp_tfidf": {"batch_size": "many"}}}})


def test_shipped_envs_load_and_validate():
    for env in sorted(p.name for p in (ROOT / "conf").iterdir()
                      if p.is_dir() and p.name not in ("base", "local")):
        loader = settings.CONFIG_LOADER_CLASS(conf_source=str(ROOT / "conf"), env=env,
                                              **settings.CONFIG_LOADER_ARGS)
        assert loader["parameters"]["ingest"]["sources"], env
