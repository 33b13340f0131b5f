"""Run-consistent outputs: a failed or interrupted run leaves no version that a later load
picks up.

Kedro saves every versioned dataset of one run under the same version id (the session id),
in ``<filepath>/<version>/<file name>``, and loads the newest version folder holding the file.
A run that dies half-way would leave its new versions beside the last complete run's, so
"latest" would pair a new ``kg_edges_tfidf`` with an old ``kg_quality_summary``, or serve a
0-byte file torn by a kill mid-save. :class:`RunIntegrity` (a Kedro hook) prevents that:

- ``before_pipeline_run`` writes a *started* marker, ``data/.runs/running/<version>.json``
  (version, pid, host, pipelines, and the version folder of every versioned dataset the run
  may save), durably, before any node runs;
- ``after_pipeline_run`` appends the run to the manifest of complete runs,
  ``data/.runs/complete.jsonl`` (version, env, pipelines, git commit, finish time, the datasets
  it saved with their paths, the run's full parameters and their sha256, and the sha256 of
  every raw input file its ``ingest.sources`` name), then removes the marker;
- ``on_pipeline_error`` (an exception), and an ``atexit`` handler (Ctrl-C: a
  ``KeyboardInterrupt`` reaches no Kedro hook), delete the version folders this run wrote;
- ``after_catalog_created`` (every ``kedro run``, ``kedro ipython``/Jupyter session, kedro-viz)
  sweeps the markers of runs that are no longer running (SIGKILL, SIGTERM, power loss: no
  code of theirs ran) and deletes their version folders, so the next load (or run) sees the
  previous complete version. A run still in progress (its process alive) is left alone.

Versions that exist without a marker (written before this hook existed, or by hand) are never
touched. Non-versioned datasets are overwritten in place by Kedro; they are the intermediate
tables every pipeline rebuilds from the raw files.

:func:`complete_runs` and :func:`last_complete_version` read the manifest, e.g. to pin a
notebook's loads to one complete run; :func:`run_of` gives the record of the run that saved a
dataset's version (its parameters, commit and input hashes).
"""
from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import shutil
import socket
import subprocess
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kedro.framework.hooks import hook_impl
from kedro.io.core import AbstractVersionedDataset

logger = logging.getLogger(__name__)

RUNS_DIR = Path("data") / ".runs"
COMPLETE_FILE = "complete.jsonl"
RUNNING_DIR = "running"

_lock = threading.Lock()
_active: dict[str, Path] = {}  # version -> marker, for the runs of this process in progress
_atexit_registered = False


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _process_start(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot (Linux), to tell a live
    run from a new process that reuses its pid; None where ``/proc`` is not available."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]


def _alive(pid: int, started: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's live process
    except OSError:
        return False
    if started is not None:
        now = _process_start(pid)
        if now is not None and now != started:
            return False  # the pid was reused by another process
    return True


def git_commit(project_path: Path) -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=project_path, capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def parameters_digest(parameters: Any) -> str:
    """sha256 of the parameters as canonical JSON (sorted keys): equal for equal parameters."""
    text = json.dumps(parameters, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def input_hashes(parameters: Any, project_path: Path) -> dict[str, str]:
    """``path -> sha256`` of every file an ``ingest.sources`` entry reads (a documents folder:
    each file in it), relative to the project where inside it; a missing path is left out."""
    from kgp_kedro.models.cache import file_sha256  # at the run's end, not at settings import

    sources = ((parameters or {}).get("ingest") or {}).get("sources") or []
    hashes: dict[str, str] = {}
    for source in sources:
        path = Path(str(source.get("path", "")))
        path = path if path.is_absolute() else project_path / path
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else \
            [path] if path.is_file() else []
        for file in files:
            try:
                name = str(file.relative_to(project_path))
            except ValueError:
                name = str(file)
            hashes[name] = file_sha256(file)
    return hashes


def _run_parameters(catalog) -> Any:
    try:
        return catalog.load("parameters")
    except Exception:  # noqa: BLE001 - a catalog without parameters records none
        return None


def _write_durably(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary name, fsync'd, then renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)


def _append_durably(path: Path, line: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def runs_dir(project_path: str | os.PathLike) -> Path:
    return Path(project_path) / RUNS_DIR


def complete_runs(project_path: str | os.PathLike) -> list[dict[str, Any]]:
    """The manifest of complete runs, oldest first (an unreadable line is skipped)."""
    path = runs_dir(project_path) / COMPLETE_FILE
    if not path.is_file():
        return []
    runs = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            runs.append(json.loads(line))
        except json.JSONDecodeError:
            logger.warning("%s: line %d is not JSON; ignored", path, line_no)
    return runs


def last_complete_version(project_path: str | os.PathLike,
                          dataset: str | None = None) -> str | None:
    """The version id of the newest complete run (that saved ``dataset``, when given)."""
    for run in reversed(complete_runs(project_path)):
        if dataset is None or dataset in run.get("datasets", {}):
            return run["version"]
    return None


def run_of(project_path: str | os.PathLike, dataset: str,
           version: str | None = None) -> dict[str, Any] | None:
    """The manifest record of the complete run that saved ``version`` of ``dataset`` (default:
    its newest complete version), or None."""
    for run in reversed(complete_runs(project_path)):
        if dataset in run.get("datasets", {}) and version in (None, run["version"]):
            return run
    return None


def _versioned_outputs(pipeline, catalog) -> dict[str, Path]:
    """``dataset name -> version folder`` of the pipeline's versioned outputs on a local disk
    (reads Kedro's private ``_version``, ``_filepath``, ``_protocol``, pinned by
    tests/test_kedro_private_names.py)."""
    folders: dict[str, Path] = {}
    for name in sorted(pipeline.all_outputs()):
        try:
            dataset = catalog.get(name)
        except Exception:  # noqa: BLE001 - a dataset that cannot be built is not ours to track
            continue
        if not isinstance(dataset, AbstractVersionedDataset) or not dataset._version:
            continue
        if getattr(dataset, "_protocol", "file") not in ("file", None):
            continue  # remote storage: no local folder to clean
        version = dataset.resolve_save_version()
        if version:
            folders[name] = Path(str(dataset._filepath)) / version
    return folders


def _remove_versions(marker: dict[str, Any]) -> list[str]:
    """Delete the version folders listed in ``marker`` (only folders named by its version)."""
    removed = []
    for name, folder in marker.get("datasets", {}).items():
        folder = Path(folder)
        if folder.name != marker["version"] or not folder.exists():
            continue
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(name)
        else:
            logger.warning("Could not remove %s, a version of the incomplete run %s", folder,
                           marker["version"])
    return removed


def _discard_run(marker_path: Path, why: str) -> None:
    """Remove an incomplete run's versions, then its marker."""
    try:
        marker = json.loads(marker_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        marker_path.unlink(missing_ok=True)
        return
    removed = _remove_versions(marker)
    marker_path.unlink(missing_ok=True)
    if removed:
        logger.warning("Run %s %s: removed the %d versions it had saved (%s), so loads see "
                       "the last complete run", marker["version"], why, len(removed),
                       ", ".join(removed))
    else:
        logger.info("Run %s %s before saving any versioned output", marker["version"], why)


def sweep_incomplete_runs(project_path: str | os.PathLike,
                          current_version: str | None = None) -> list[str]:
    """Discard the runs of ``project_path`` that started, did not complete, and are no longer
    running (or whose run in this process ended); returns their version ids."""
    running = runs_dir(project_path) / RUNNING_DIR
    if not running.is_dir():
        return []
    complete = {run.get("version") for run in complete_runs(project_path)}
    swept = []
    for marker_path in sorted(running.glob("*.json")):
        version = marker_path.stem
        if version == current_version:
            continue
        try:
            marker = json.loads(marker_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            marker = {}
        if version in complete:  # killed between the manifest line and the marker's removal
            marker_path.unlink(missing_ok=True)
            continue
        pid, host = marker.get("pid"), marker.get("host")
        if host not in (None, socket.gethostname()):
            continue  # another machine's run: its liveness is unknown here
        if isinstance(pid, int):
            if pid == os.getpid():
                with _lock:
                    if version in _active:
                        continue
            elif _alive(pid, marker.get("process_start")):
                continue
        _discard_run(marker_path, "was interrupted")
        swept.append(version)
    return swept


def _discard_active_runs() -> None:
    """At interpreter exit: discard this process's runs that never completed (Ctrl-C)."""
    with _lock:
        pending = list(_active.items())
        _active.clear()
    for _version, marker_path in pending:
        if marker_path.exists():
            _discard_run(marker_path, "was interrupted")


class RunIntegrity:
    """Kedro hook: a run's versioned outputs count only once the whole run has completed
    (see the module docstring). Register it in ``settings.py``'s ``HOOKS``."""

    def __init__(self) -> None:
        self._project_path: Path | None = None
        self._versions: dict[str, str] = {}  # run id -> save version, for the runs in progress

    def _project(self, run_params: dict[str, Any] | None = None) -> Path:
        if run_params and run_params.get("project_path"):
            return Path(run_params["project_path"])
        return self._project_path or Path.cwd()

    @hook_impl
    def after_context_created(self, context) -> None:
        self._project_path = Path(context.project_path)

    @hook_impl
    def after_catalog_created(self, catalog, save_version: str) -> None:
        try:
            sweep_incomplete_runs(self._project(), save_version)
        except OSError as exc:  # never block a load or a run over a cleanup
            logger.warning("Could not sweep incomplete runs: %s", exc)

    @hook_impl
    def before_pipeline_run(self, run_params: dict[str, Any], pipeline, catalog) -> None:
        global _atexit_registered
        project = self._project(run_params)
        folders = _versioned_outputs(pipeline, catalog)
        version = next(iter(folders.values())).name if folders else run_params["run_id"]
        marker = {"version": version, "pid": os.getpid(),
                  "process_start": _process_start(os.getpid()), "host": socket.gethostname(),
                  "started": _now(), "pipelines": run_params.get("pipeline_names"),
                  "datasets": {name: str(folder) for name, folder in folders.items()}}
        marker_path = runs_dir(project) / RUNNING_DIR / f"{version}.json"
        _write_durably(marker_path, json.dumps(marker, indent=1))
        self._versions[run_params["run_id"]] = version
        with _lock:
            _active[version] = marker_path
            if not _atexit_registered:
                atexit.register(_discard_active_runs)
                _atexit_registered = True

    def _marker(self, run_params: dict[str, Any]) -> tuple[str | None, Path | None]:
        """This run's version and started marker (None once it is recorded or discarded)."""
        version = self._versions.pop(run_params.get("run_id"), None)
        with _lock:
            return version, _active.pop(version, None) if version else None

    @hook_impl
    def after_pipeline_run(self, run_params: dict[str, Any], pipeline, catalog) -> None:
        version, marker_path = self._marker(run_params)
        if marker_path is None:
            return
        project = self._project(run_params)
        marker = json.loads(marker_path.read_text(encoding="utf-8"))
        saved = {name: folder for name, folder in marker["datasets"].items()
                 if Path(folder).is_dir()}
        parameters = _run_parameters(catalog)
        record = {"version": version, "pipelines": run_params.get("pipeline_names"),
                  "env": run_params.get("env"), "git_commit": git_commit(project),
                  "started": marker.get("started"), "finished": _now(), "datasets": saved,
                  "parameters_sha256": parameters_digest(parameters),
                  "inputs": input_hashes(parameters, project), "parameters": parameters}
        _append_durably(runs_dir(project) / COMPLETE_FILE, json.dumps(record))
        marker_path.unlink(missing_ok=True)
        logger.info("Run %s complete: %d versioned outputs recorded in %s", version, len(saved),
                    runs_dir(project) / COMPLETE_FILE)

    @hook_impl
    def on_pipeline_error(self, error: Exception, run_params: dict[str, Any], pipeline,
                          catalog) -> None:
        version, marker_path = self._marker(run_params)
        if marker_path is None:
            return
        _discard_run(marker_path, f"failed ({type(error).__name__})")
