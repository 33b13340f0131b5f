"""Whole-file writes that a killed process cannot tear: the bytes go to a temporary file
beside the target, are flushed to disk, and the file is renamed over the target. Files that
belong together (a benchmark's ``answers.csv`` and its ``run.json``) are all written to their
temporary files first, then renamed one after the other: a failure before the renames leaves
every old file."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path


def write_atomic(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` (its folder made if missing); an interrupted write
    leaves the previous file whole and at most a ``.<name>.*.tmp`` file beside it."""
    write_atomic_together({Path(path): data})


def write_atomic_together(files: Mapping[Path, bytes]) -> None:
    """Replace each path of ``files`` with its bytes: every temporary file written and flushed
    first, then the renames back to back, so an error while writing leaves every old file."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in files.items():
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            staged.append((tmp, path))
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        for tmp, path in staged:
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
