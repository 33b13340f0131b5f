"""Exclusive locks across processes on the committed results (``fcntl.flock`` on a lock file
in an ignored ``.locks/`` folder beside what it guards): the reply store's shards and each
benchmark's answers, run record and recordings."""
from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCKS = ".locks"   # ignored by git (.gitignore: results/**/.locks/)


@contextmanager
def locked(folder: str | Path, name: str) -> Iterator[None]:
    """Hold the exclusive lock ``folder/.locks/name`` (made if missing) until the block ends;
    another process (or thread) asking for the same lock waits."""
    locks = Path(folder) / LOCKS
    locks.mkdir(parents=True, exist_ok=True)
    with (locks / name).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def benchmark_locked(directory: str | Path):
    """The one lock of a benchmark's results (``results/<benchmark>/``: its ``answers.csv``
    with ``run.json``, and its recordings), held beside it: ``results/.locks/<benchmark>``."""
    directory = Path(directory)
    return locked(directory.parent, directory.name)
