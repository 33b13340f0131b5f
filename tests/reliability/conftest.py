"""The tiny project's complete run, made once: the tests that interrupt or repeat a run each
work on a copy of it."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.reliability.tiny_project import kedro_run, make_tiny_project


@pytest.fixture(scope="session")
def tiny_complete_run(tmp_path_factory) -> Path:
    """The tiny project after one complete ``kedro run`` (label ``good``), in a subprocess."""
    root = make_tiny_project(tmp_path_factory.mktemp("tiny_complete") / "tiny")
    done = kedro_run(root, "good")
    assert done.returncode == 0, done.stdout + done.stderr
    return root


@pytest.fixture()
def tiny_project(tmp_path, tiny_complete_run) -> Path:
    """A copy of the tiny project after its complete run (label ``good``): its versions and
    its manifest of complete runs (whose dataset paths name the original's folders)."""
    return Path(shutil.copytree(tiny_complete_run, tmp_path / "tiny", symlinks=True))
