"""Secrets from conf/local/credentials.yml reach the environment, without overriding it; a
missing raw source stops a run before any node."""
from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from kgp_kedro.hooks import CredentialsToEnvironment
from tests.conftest import HOTPOT, ROOT
from tests.projects import make_project, run_pipeline


def test_tagme_token_is_exported_unless_already_set(monkeypatch):
    context = SimpleNamespace(config_loader={"credentials": {"tagme": {"token": "abc"}}})
    monkeypatch.delenv("TAGME_TOKEN", raising=False)
    CredentialsToEnvironment().after_context_created(context)
    assert os.environ["TAGME_TOKEN"] == "abc"
    monkeypatch.setenv("TAGME_TOKEN", "mine")
    CredentialsToEnvironment().after_context_created(context)
    assert os.environ["TAGME_TOKEN"] == "mine"


def test_no_credentials_is_fine(monkeypatch):
    monkeypatch.delenv("TAGME_TOKEN", raising=False)
    CredentialsToEnvironment().after_context_created(SimpleNamespace(config_loader={}))
    assert "TAGME_TOKEN" not in os.environ


def test_a_missing_raw_source_stops_the_run_before_any_node_naming_the_key(tmp_path):
    """The second source's path does not exist: the run stops before the first source is read,
    before any node and before the run is marked started (no file written under data/)."""
    project = make_project(tmp_path)
    runtime = {"ingest": {"sources": [
        {"dataset": "hotpotqa", "path": str(HOTPOT.relative_to(ROOT)), "limit": 2},
        {"dataset": "musique", "path": "data/01_raw/musique/missing.jsonl", "limit": 2}]}}
    with pytest.raises(FileNotFoundError, match=r"^ingest\.sources\[1\]\.path: musique source "
                                                 r"not found: .*/data/01_raw/musique/missing"):
        run_pipeline(project, "ingest", runtime_params=runtime)
    written = [p for p in (project / "data").rglob("*") if p.is_file() and "01_raw" not in p.parts]
    assert written == []


@pytest.mark.parametrize("stage,block", [("ewek", "training"), ("holmes", "auxiliary")])
def test_a_missing_train_file_stops_the_run_before_any_node_naming_the_key(tmp_path, stage,
                                                                         block):
    project = make_project(tmp_path)
    runtime = {stage: {block: {"sources": [
        {"dataset": "hotpotqa", "path": "data/01_raw/hotpotqa/missing_train.json"}]}}}
    with pytest.raises(FileNotFoundError, match=rf"^{stage}\.{block}\.sources\[0\]\.path: "
                                                r"hotpotqa source not found: "
                                                r"data/01_raw/hotpotqa/missing_train\.json"):
        run_pipeline(project, stage, runtime_params=runtime)
    written = [p for p in (project / "data").rglob("*") if p.is_file() and "01_raw" not in p.parts]
    assert written == []


def test_conf_local_credentials_are_read_under_another_env(tmp_path, monkeypatch, caplog):
    """`--env X` replaces conf/local, where credentials.yml lives: its key still reaches the
    environment (the env's own credentials file winning key by key), and is not logged."""
    from kgp_kedro.pipelines.parameters import ConfigLoader

    conf = tmp_path / "conf"
    for env in ("base", "local", "other"):
        (conf / env).mkdir(parents=True)
    (conf / "local" / "credentials.yml").write_text(
        "llm: {api_key: sk-local}\ntagme: {token: local-token}\n")
    (conf / "other" / "credentials.yml").write_text("tagme: {token: other-token}\n")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("TAGME_TOKEN", raising=False)
    loader = ConfigLoader(conf_source=str(conf), env="other", base_env="base",
                          default_run_env="local")
    with caplog.at_level("DEBUG"):
        CredentialsToEnvironment().after_context_created(SimpleNamespace(config_loader=loader))
    assert os.environ["OPENAI_API_KEY"] == "sk-local"
    assert os.environ["TAGME_TOKEN"] == "other-token"
    assert "llm.api_key" in caplog.text and "sk-local" not in caplog.text


def test_an_ask_run_without_a_folder_stops_naming_the_key(tmp_path):
    """`kedro run --env ask` alone would ask base's benchmark questions: it stops first, with
    the error the config gives questions asked without a folder."""
    from kgp_kedro.config import ParameterError
    from kgp_kedro.config.sections import ask_folder_missing

    project = make_project(tmp_path)
    with pytest.raises(ParameterError) as stopped:
        run_pipeline(project, "__default__", env="ask")
    assert str(stopped.value) == str(ask_folder_missing())
    assert stopped.value.key == "ask.folder"
    written = [p for p in (project / "data").rglob("*") if p.is_file() and "01_raw" not in p.parts]
    assert written == []


def test_a_reading_run_without_its_model_stops_naming_the_key(tmp_path, monkeypatch):
    """The ask env's reader is a packaged model whose package is not installed: the run stops
    before any node, naming llm.local.model and what to install (a model that is only missing
    would otherwise stop the run at its first answer, after parsing and indexing)."""
    from kgp_kedro.config import ParameterError
    from kgp_kedro.llm.packaged import PACKAGED_MODELS, PackagedModel

    absent = PackagedModel("absent-model", (("no_such_package_kgp", "x.bin"),), "0" * 64, 1, "",
                           "no-such-package")
    monkeypatch.setitem(PACKAGED_MODELS, "absent-model", absent)
    project = make_project(tmp_path)
    folder = project / "my_documents"
    folder.mkdir()
    (folder / "notes.md").write_text("# Notes\n\nThe plant opened in 1998.\n")
    runtime = {"ask": {"folder": "my_documents", "question": "When did the plant open?"},
               "llm": {"local": {"model": "absent-model", "cache_dir": str(tmp_path / "models")}}}
    with pytest.raises(ParameterError, match=r"^llm\.local\.model: .*pip install no-such-package"):
        run_pipeline(project, "__default__", env="ask", runtime_params=runtime)
    written = [p for p in (project / "data").rglob("*") if p.is_file() and "01_raw" not in p.parts]
    assert written == []
