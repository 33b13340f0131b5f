"""A persistent on-disk cache of LLM calls, so a re-run costs nothing and an interrupted run
resumes without losing answers. SQLite: every answer is committed as soon as it arrives."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any


def call_key(backend: str, model: str, messages: list[dict[str, str]],
             sampling: dict[str, Any]) -> str:
    """Stable key of one call: (backend, model, messages, sampling params)."""
    payload = json.dumps([backend, model, messages, sampling], sort_keys=True,
                         ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class CallCache:
    """``key -> response record`` in a SQLite file (thread-safe; one writer at a time)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, record TEXT)")
        self._db.commit()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT record FROM calls WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, record: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO calls VALUES (?, ?)",
                             (key, json.dumps(record, ensure_ascii=False)))
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
