"""Interrupted or failed runs leave nothing a later load picks up (issue 13), on a real
``kedro run`` of a tiny project in a subprocess: SIGKILL mid-save, SIGINT mid-save, and an
exception in a node. Each later load gets the last complete run's version of every output."""
from __future__ import annotations

import json
import signal

import pytest

from kgp_kedro.runs.integrity import complete_runs, last_complete_version
from tests.reliability.tiny_project import (OUTPUTS, kedro_run, load_latest, start_hanging_run,
                                            versions)

COMPLETE = {"first": "first of good " * 20, "second": "second of good " * 20,
            "table_third": "third of good " * 20}


@pytest.fixture()
def project(tiny_project):
    """The tiny project after one complete run (label ``good``): a copy of the session's."""
    return tiny_project


def _running_markers(project):
    return sorted(p.name for p in (project / "data" / ".runs" / "running").glob("*.json"))


def test_a_complete_run_is_recorded_in_the_manifest(project):
    runs = complete_runs(project)
    assert len(runs) == 1
    (version,) = {v for vs in versions(project).values() for v in vs}
    run = runs[0]
    assert run["version"] == version and run["finished"]
    assert set(run["datasets"]) == set(OUTPUTS)          # the factory dataset too
    assert run["datasets"]["table_third"].endswith(f"data/tables/third.txt/{version}")
    assert last_complete_version(project, "second") == version
    assert _running_markers(project) == []
    assert load_latest(project) == COMPLETE


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_kill_mid_save_then_a_later_load_gets_the_previous_complete_version(project, sig):
    """SIGKILL (and SIGTERM, whose default action runs no Python code either)."""
    before = versions(project)
    child = start_hanging_run(project, "second", label="killed")
    child.send_signal(sig)
    child.wait()
    torn = versions(project)
    # the hazard: the killed run left a new `first` and a half-written `second` as newest
    assert len(torn["first"]) == len(torn["second"]) == 2
    new = torn["second"][-1]
    half = (project / OUTPUTS["second"] / new / "second.txt").read_text()
    assert 0 < len(half) < len(COMPLETE["second"])
    assert _running_markers(project) == [f"{new}.json"]

    assert load_latest(project) == COMPLETE               # a later session: previous run
    assert versions(project) == before                    # the torn versions are gone
    assert _running_markers(project) == []
    assert [r["version"] for r in complete_runs(project)] == before["first"]


def test_sigint_mid_save_leaves_no_new_version(project):
    before = versions(project)
    child = start_hanging_run(project, "second", label="interrupted")
    child.send_signal(signal.SIGINT)
    output, _ = child.communicate(timeout=60)
    assert child.returncode != 0
    assert versions(project) == before, output           # cleaned before the process ended
    assert _running_markers(project) == []
    assert len(complete_runs(project)) == 1
    assert load_latest(project) == COMPLETE


def test_an_exception_in_a_node_leaves_no_new_version(project):
    before = versions(project)
    failed = kedro_run(project, "failing", TINY_FAIL_AT="second")
    assert failed.returncode != 0 and "scripted failure" in failed.stdout + failed.stderr
    assert versions(project) == before                    # `first` had been saved: removed
    assert _running_markers(project) == []
    assert len(complete_runs(project)) == 1
    assert load_latest(project) == COMPLETE


def test_a_run_in_progress_is_not_swept_by_a_concurrent_load(project):
    child = start_hanging_run(project, "third", label="live")
    try:
        load_latest(project)                              # a notebook opened meanwhile
        assert all(len(v) == 2 for v in versions(project).values())  # the live run's own
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert load_latest(project) == COMPLETE


def test_versions_without_a_marker_are_never_touched(project):
    legacy = project / OUTPUTS["second"] / "2000-01-01T00.00.00.000Z"
    legacy.mkdir()
    (legacy / "second.txt").write_text("written before the hook existed")
    load_latest(project)
    assert legacy.is_dir()


def test_a_next_run_after_a_kill_completes_and_records_only_itself(project):
    child = start_hanging_run(project, "first", label="killed")
    child.send_signal(signal.SIGKILL)
    child.wait()
    done = kedro_run(project, "next")
    assert done.returncode == 0, done.stdout + done.stderr
    runs = complete_runs(project)
    assert len(runs) == 2 and all(len(v) == 2 for v in versions(project).values())
    assert json.loads(json.dumps(load_latest(project)))["second"] == "second of next " * 20
