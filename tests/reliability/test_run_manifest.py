"""The manifest of complete runs records what produced each version: the run's parameters and
their hash, the git commit, and the sha256 of the raw files its ingest.sources read."""
from __future__ import annotations

import hashlib

from kgp_kedro.runs.integrity import complete_runs, input_hashes, parameters_digest, run_of
from tests.conftest import HOTPOT, MUSIQUE, ROOT
from tests.reliability.tiny_project import kedro_run


def test_input_hashes_are_the_sha256_of_each_source_file():
    params = {"ingest": {"sources": [
        {"dataset": "hotpotqa", "path": str(HOTPOT.relative_to(ROOT))},
        {"dataset": "musique", "path": str(MUSIQUE)},                 # absolute, inside
        {"dataset": "documents", "path": "data/01_raw/no-such-folder"}]}}
    hashes = input_hashes(params, ROOT)
    assert hashes == {str(p.relative_to(ROOT)): hashlib.sha256(p.read_bytes()).hexdigest()
                      for p in (HOTPOT, MUSIQUE)}
    folder = input_hashes({"ingest": {"sources": [{"path": "data/01_raw/musique"}]}}, ROOT)
    assert str(MUSIQUE.relative_to(ROOT)) in folder and len(folder) == len(
        [p for p in MUSIQUE.parent.rglob("*") if p.is_file()])


def test_the_parameters_hash_ignores_key_order_and_sees_any_value():
    assert parameters_digest({"a": 1, "b": {"c": [1, 2]}}) == \
        parameters_digest({"b": {"c": [1, 2]}, "a": 1})
    assert parameters_digest({"a": 1}) != parameters_digest({"a": 2})


def test_a_complete_run_records_its_parameters_with_its_versions(tiny_project):
    project = tiny_project                                       # after a run labelled good
    done = kedro_run(project, "other")
    assert done.returncode == 0, done.stdout + done.stderr
    old, new = complete_runs(project)
    assert run_of(project, "second") == new                      # the newest version's run
    assert run_of(project, "second", old["version"]) == old
    assert (old["parameters"], new["parameters"]) == ({"label": "good"}, {"label": "other"})
    assert new["parameters_sha256"] == parameters_digest({"label": "other"})
    assert new["inputs"] == {}                        # no ingest.sources in the tiny project
