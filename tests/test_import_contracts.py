"""The import contracts (pyproject.toml's ``[tool.importlinter]``, checked by ``lint-imports``
in ``make test``) name every stage: a folder added to ``pipelines/`` and left out of the
stages' independence contract would be free to import the other stages."""
from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:   # Python 3.10: the same parser, as the package tomli (the test extra installs it)
    import tomli as tomllib

import kgp_kedro.pipelines

ROOT = Path(__file__).resolve().parents[1]
PIPELINES = Path(kgp_kedro.pipelines.__file__).parent


def contract(contract_id: str) -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return next(c for c in config["contracts"] if c["id"] == contract_id)


def test_the_stages_contract_names_every_stage_folder():
    stages = {p.name for p in PIPELINES.iterdir() if (p / "__init__.py").exists()}
    assert {"retrieve", "pooled", "retrieval_quality"} <= stages
    listed = {m.removeprefix("kgp_kedro.pipelines.") for m in contract("stages")["modules"]}
    assert listed == stages
