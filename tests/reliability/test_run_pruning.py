"""``make prune``: the last N complete runs of the manifest kept, older version folders
deleted, each dataset's newest version kept whatever its run's age; on a temp project."""
from __future__ import annotations

import json
import os
import socket

import pytest

from kgp_kedro.runs.integrity import complete_runs, runs_dir
from kgp_kedro.runs.pruning import main, prune_runs


def make_project(tmp_path, runs):
    """A project whose manifest lists ``runs`` (``(version, [dataset, ...])``, oldest first),
    each dataset's version folder holding its file."""
    records = []
    for version, names in runs:
        datasets = {}
        for name in names:
            folder = tmp_path / "data" / f"{name}.parquet" / version
            folder.mkdir(parents=True)
            (folder / f"{name}.parquet").write_bytes(b"x")
            datasets[name] = f"data/{name}.parquet/{version}"
        records.append({"version": version, "datasets": datasets})
    runs_dir(tmp_path).mkdir(parents=True)
    (runs_dir(tmp_path) / "complete.jsonl").write_text("".join(json.dumps(r) + "\n"
                                                              for r in records))
    return tmp_path


def versions(project, name):
    return sorted(p.name for p in (project / "data" / f"{name}.parquet").iterdir())


def test_old_runs_are_pruned_but_every_dataset_keeps_its_newest_version(tmp_path):
    project = make_project(tmp_path, [("v1", ["kg", "questions"]), ("v2", ["kg"]),
                                      ("v3", ["kg", "answers"]), ("v4", ["answers"])])
    unlisted = project / "data" / "kg.parquet" / "by-hand"
    unlisted.mkdir()
    old_kg = [project / "data/kg.parquet/v2", project / "data/kg.parquet/v1"]
    assert prune_runs(project, 2, dry_run=True) == old_kg
    assert versions(project, "kg") == ["by-hand", "v1", "v2", "v3"]   # a dry run deletes nothing
    assert prune_runs(project, 2) == old_kg
    # v1's questions is the only version of questions: kept, though v1 is not among the last 2
    assert versions(project, "kg") == ["by-hand", "v3"]
    assert versions(project, "questions") == ["v1"]
    assert [(r["version"], sorted(r["datasets"])) for r in complete_runs(project)] == [
        ("v1", ["questions"]), ("v3", ["answers", "kg"]), ("v4", ["answers"])]
    main(["--keep", "1", "--project", str(project)])
    assert versions(project, "kg") == ["by-hand", "v3"]   # kg's newest version is v3's
    assert versions(project, "answers") == ["v4"]
    assert versions(project, "questions") == ["v1"]
    assert [(r["version"], sorted(r["datasets"])) for r in complete_runs(project)] == [
        ("v1", ["questions"]), ("v3", ["kg"]), ("v4", ["answers"])]
    assert prune_runs(project, 1) == []


def test_nothing_is_pruned_during_a_run_or_with_a_bad_count(tmp_path):
    project = make_project(tmp_path, [("v1", ["kg"]), ("v2", ["kg"])])
    with pytest.raises(ValueError, match="keep must be a positive number of runs, got 0"):
        prune_runs(project, 0)
    running = runs_dir(project) / "running"
    running.mkdir()
    # a live process (this one's parent) running v3
    (running / "v3.json").write_text(json.dumps({"version": "v3", "pid": os.getppid(),
                                                 "host": socket.gethostname(),
                                                 "datasets": {}}))
    with pytest.raises(RuntimeError, match="a run is in progress"):
        prune_runs(project, 1)
    assert versions(project, "kg") == ["v1", "v2"]
