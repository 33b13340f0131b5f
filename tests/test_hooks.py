"""Secrets from conf/local/credentials.yml reach the environment, without overriding it."""
from __future__ import annotations

import os
from types import SimpleNamespace

from kgp_kedro.hooks import CredentialsToEnvironment


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
