"""Version pruning: keep the last ``keep`` complete runs of the manifest
(``data/.runs/complete.jsonl``, :mod:`kgp_kedro.runs.integrity`) and delete the version folders
older runs saved (``make prune KEEP=N``, or ``python -m kgp_kedro.runs.pruning --keep N``).

A dataset's newest complete version is always kept, even when the run that saved it is older
than the last ``keep`` (a run of one stage does not save the others' outputs: pruning never
leaves a dataset without a version to load). Version folders the manifest does not list
(written before the manifest existed, or by hand) are never touched, and nothing is pruned
while a run is in progress.
The manifest is rewritten to list what is left: each older run with the datasets whose
versions it still holds, and without the runs left with none.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

from kgp_kedro.plumbing.atomic import write_atomic
from kgp_kedro.runs.integrity import (COMPLETE_FILE, RUNNING_DIR, complete_runs, runs_dir,
                                     sweep_incomplete_runs)

logger = logging.getLogger(__name__)


def _folder(project: Path, recorded: str, version: str) -> Path | None:
    """The version folder a manifest entry names (relative paths are the project's), or None
    when it is not a folder named by its run's version (never deleted)."""
    folder = Path(recorded)
    folder = folder if folder.is_absolute() else project / folder
    return folder if folder.name == version else None


def prune_runs(project_path: str | os.PathLike, keep: int,
               dry_run: bool = False) -> list[Path]:
    """Delete the version folders of the complete runs older than the last ``keep`` (each
    dataset's newest version kept); the folders deleted (or that would be, ``dry_run``)."""
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
        raise ValueError(f"keep must be a positive number of runs, got {keep!r}")
    project = Path(project_path)
    sweep_incomplete_runs(project)   # the markers of runs that died are discarded first
    running = sorted((runs_dir(project) / RUNNING_DIR).glob("*.json"))
    if running:
        raise RuntimeError(f"a run is in progress ({running[0]}): prune once it has ended")
    runs = complete_runs(project)
    old, kept = runs[:-keep], runs[-keep:]
    newest = {name for run in kept for name in run.get("datasets", {})}
    removed: list[Path] = []
    survivors: list[dict[str, Any]] = []
    for run in reversed(old):   # newest first: a dataset's newest version is the first seen
        left = {}
        for name, recorded in run.get("datasets", {}).items():
            folder = _folder(project, recorded, run["version"])
            if name not in newest or folder is None:
                newest.add(name)
                left[name] = recorded
                continue
            if folder.exists():
                removed.append(folder)
                if not dry_run:
                    shutil.rmtree(folder)
        if left:
            survivors.append({**run, "datasets": left})
    if not dry_run and old:
        write_atomic(runs_dir(project) / COMPLETE_FILE,
                     "".join(json.dumps(run) + "\n"
                             for run in [*reversed(survivors), *kept]).encode("utf-8"))
    logger.info("%s %d version folders of %d runs older than the last %d",
                "Would delete" if dry_run else "Deleted", len(removed), len(old), keep)
    return removed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kgp_kedro.runs.pruning",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=int, default=3, help="complete runs to keep (default 3)")
    parser.add_argument("--project", default=".", help="the Kedro project (default: .)")
    parser.add_argument("--dry-run", action="store_true", help="list, delete nothing")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for folder in prune_runs(args.project, args.keep, args.dry_run):
        logger.info("  %s", folder)


if __name__ == "__main__":
    main()
