"""A notebook's loads say which complete run they come from (the run manifest), and pin to
another complete run on request."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
from kedro.io import DataCatalog, Version

from kgp_kedro.io.table import TableDataset
from kgp_kedro.reporting.notebook import load_outputs


def _shown(capsys) -> str:
    """What the notebook helper printed (Kedro's console log handler, once a project session
    configured logging, prints the catalog's lines to stdout too)."""
    return "\n".join(line for line in capsys.readouterr().out.splitlines()
                     if line.startswith("Showing run"))


def test_loads_name_their_run_and_pin_to_an_older_one(tmp_path, capsys):
    path = str(tmp_path / "data" / "answers.parquet")
    runs = []
    for version, value in (("2026-01-01T00.00.00.000Z", 1), ("2026-01-02T00.00.00.000Z", 2)):
        TableDataset(filepath=path, version=Version(None, version)).save(
            pd.DataFrame({"x": [value]}))
        runs.append({"version": version, "env": "ask", "pipelines": None,
                     "finished": version, "git_commit": "abcdef1234567", "datasets":
                     {"answers": f"{path}/{version}"}})
    (tmp_path / "data" / ".runs").mkdir()
    (tmp_path / "data" / ".runs" / "complete.jsonl").write_text(
        "".join(json.dumps(run) + "\n" for run in runs[:1]))   # the newer one: by hand
    catalog = DataCatalog({"answers": TableDataset(filepath=path, version=Version(None, None))})
    context = SimpleNamespace(project_path=tmp_path)

    newest = load_outputs(catalog, ["answers"], "cmd", context=context)
    assert newest["answers"]["x"].tolist() == [2]
    assert _shown(capsys) == (f"Showing run {runs[1]['version']} (not in "
                              "data/.runs/complete.jsonl): answers")
    pinned = load_outputs(catalog, ["answers"], "cmd", context=context, run=runs[0]["version"])
    assert pinned["answers"]["x"].tolist() == [1]
    assert _shown(capsys) == (
        f"Showing run {runs[0]['version']} (env ask, pipelines ['__default__'], finished "
        f"{runs[0]['version']}, commit abcdef1234): answers")
