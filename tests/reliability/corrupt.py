"""Helpers of the reliability suite: corrupted copies of the bundled real records, written to
``tmp_path`` (the originals in ``data/01_raw/`` are never touched)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import HOTPOT, MUSIQUE, TWOWIKI

__all__ = ["HOTPOT", "MUSIQUE", "TWOWIKI", "first_records", "write_records"]


def first_records(source: Path, n: int = 5) -> list[dict]:
    """The first ``n`` real records of a bundled file (JSON list or JSONL)."""
    if source.suffix == ".jsonl":
        return [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()[:n]]
    return json.loads(source.read_text(encoding="utf-8"))[:n]


def write_records(path: Path, records: list, jsonl: bool | None = None) -> Path:
    """``records`` in the format of ``path``'s suffix (JSONL one a line, else a JSON list)."""
    if jsonl if jsonl is not None else path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    else:
        path.write_text(json.dumps(records), encoding="utf-8")
    return path
