"""A tiny real Kedro project (built in ``tmp_path``) with :class:`RunIntegrity` registered:
three nodes, each saving a versioned text dataset (one through a dataset factory), and
switches in the environment to make a node fail or a save hang half-written, so a test can
interrupt a real ``kedro run`` in a subprocess at a known point."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

DATASETS = '''
import os
import time
from pathlib import Path, PurePosixPath

from kedro.io.core import AbstractVersionedDataset, Version


class TextDataset(AbstractVersionedDataset):
    """A versioned text file. TINY_HANG_SAVE=<file stem> makes its save write half the text,
    flush it to disk, touch TINY_FLAG, then hang: a save caught mid-way."""

    def __init__(self, filepath: str, version: Version | None = None) -> None:
        super().__init__(PurePosixPath(filepath), version)

    def load(self) -> str:
        return Path(self._get_load_path()).read_text()

    def save(self, data: str) -> None:
        path = Path(self._get_save_path())
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w") as handle:
            if os.environ.get("TINY_HANG_SAVE") == self._filepath.stem:
                handle.write(data[: len(data) // 2])
                handle.flush()
                os.fsync(handle.fileno())
                Path(os.environ["TINY_FLAG"]).write_text("saving")
                time.sleep(120)
            handle.write(data)

    def _describe(self) -> dict:
        return {"filepath": str(self._filepath), "version": self._version}

    def _exists(self) -> bool:
        return Path(self._get_load_path()).exists()
'''

PIPELINE_REGISTRY = '''
import os

from kedro.pipeline import Pipeline, node


def make_first(label: str) -> str:
    return f"first of {label} " * 20


def make_second(first: str) -> str:
    if os.environ.get("TINY_FAIL_AT") == "second":
        raise RuntimeError("scripted failure in make_second")
    return first.replace("first", "second")


def make_third(second: str) -> str:
    return second.replace("second", "third")


def register_pipelines():
    pipeline = Pipeline([
        node(make_first, "params:label", "first", name="make_first"),
        node(make_second, "first", "second", name="make_second"),
        node(make_third, "second", "table_third", name="make_third"),
    ])
    return {"__default__": pipeline, "tiny": pipeline}
'''

SETTINGS = '''
from kgp_kedro.runs.integrity import RunIntegrity

HOOKS = (RunIntegrity(),)
'''

CATALOG = '''
first:
  type: tinyrun.datasets.TextDataset
  filepath: data/first.txt
  versioned: true

second:
  type: tinyrun.datasets.TextDataset
  filepath: data/second.txt
  versioned: true

"table_{name}":
  type: tinyrun.datasets.TextDataset
  filepath: data/tables/{name}.txt
  versioned: true
'''

LOAD = '''
import json, sys
from pathlib import Path
from kedro.framework.session import KedroSession
from kedro.framework.startup import bootstrap_project

project = Path(sys.argv[1])
bootstrap_project(project)
with KedroSession.create(project_path=project) as session:
    catalog = session.load_context().catalog
    print("LOADED " + json.dumps({name: catalog.load(name)
                                 for name in ("first", "second", "table_third")}))
'''

OUTPUTS = {"first": "data/first.txt", "second": "data/second.txt",
           "table_third": "data/tables/third.txt"}


def make_tiny_project(root: Path) -> Path:
    package = root / "src" / "tinyrun"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.kedro]\npackage_name = "tinyrun"\nproject_name = "tinyrun"\n'
        'kedro_init_version = "1.7.0"\nsource_dir = "src"\n')
    (package / "__init__.py").write_text("")
    (package / "datasets.py").write_text(DATASETS)
    (package / "pipeline_registry.py").write_text(PIPELINE_REGISTRY)
    (package / "settings.py").write_text(SETTINGS)
    (root / "conf" / "base").mkdir(parents=True)
    (root / "conf" / "local").mkdir()
    (root / "conf" / "base" / "catalog.yml").write_text(CATALOG)
    (root / "conf" / "base" / "parameters.yml").write_text("label: run\n")
    (root / "data").mkdir()
    return root


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINY_")}
    return {**env, "KEDRO_DISABLE_TELEMETRY": "1", "PYTHONUNBUFFERED": "1", **extra}


def kedro_run(project: Path, label: str = "run", **env: str) -> subprocess.CompletedProcess:
    """``kedro run`` of the tiny project, to the end (a failure is returned, not raised)."""
    return subprocess.run([sys.executable, "-m", "kedro", "run", "--params", f"label={label}"],
                          cwd=project, env=_env(**env), capture_output=True, text=True,
                          timeout=120)


def start_hanging_run(project: Path, stem: str, label: str = "run") -> subprocess.Popen:
    """A ``kedro run`` that hangs half-way through saving the dataset file ``stem``; returns
    once that half-written file is on disk."""
    flag = project / f"hang-{stem}.flag"
    flag.unlink(missing_ok=True)
    child = subprocess.Popen(
        [sys.executable, "-m", "kedro", "run", "--params", f"label={label}"], cwd=project,
        env=_env(TINY_HANG_SAVE=stem, TINY_FLAG=str(flag)), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 90
    while not flag.exists():
        if child.poll() is not None:
            raise AssertionError(f"the run ended before hanging:\n{child.stdout.read()}")
        if time.monotonic() > deadline:
            child.kill()
            raise AssertionError("the run never reached the hanging save")
        time.sleep(0.05)
    return child


def load_latest(project: Path) -> dict[str, str]:
    """What a later session loads (latest version of each output), in a fresh process."""
    out = subprocess.run([sys.executable, "-c", LOAD, str(project)], cwd=project, env=_env(),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("LOADED "))
    return json.loads(line[len("LOADED "):])


def versions(project: Path) -> dict[str, list[str]]:
    """The version folders of each output on disk, oldest first."""
    return {name: sorted(p.name for p in (project / path).glob("*") if p.is_dir())
            if (project / path).exists() else [] for name, path in OUTPUTS.items()}
