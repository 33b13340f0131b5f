"""The committed reply store: every LLM reply a benchmark needed, kept in the repository
(``results/llm/``) so a long run advances piece by piece on any machine.

A reply is content-addressed by its call key (:func:`kgp_kedro.llm.cache.call_key`: the sha256
of backend, model, messages and sampling) and kept as one JSON line in the shard named by the
key's first two hex digits (``results/llm/3f.jsonl``: 256 small files, so two runs that add
replies rarely touch the same file, and ``.gitattributes`` merges a shard both sides appended
to as the union of their lines).

Writes are atomic: a shard is rewritten to a temporary file beside it and renamed over it,
under an exclusive lock, so a killed writer leaves the previous shard whole and never a torn
line. A key already stored is not written again (a duplicate write is a no-op, whatever its
record). A line that is not a stored reply (a hand edit, a merge-conflict marker) stops the
read with an error naming the file and the line.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from kgp_kedro.plumbing.atomic import write_atomic
from kgp_kedro.plumbing.locks import locked

SHARD_HEX = 2   # shard = the key's first two hex digits


class CorruptStoreError(ValueError):
    """A shard line that is not a stored reply."""


class ReplyStore:
    """``key -> reply record`` over ``root/<shard>.jsonl`` (the interface of
    :class:`kgp_kedro.llm.cache.CallCache`: get, put, len, close)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._shards: dict[str, dict[str, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def _path(self, shard: str) -> Path:
        return self.root / f"{shard}.jsonl"

    def _read(self, shard: str) -> dict[str, dict[str, Any]]:
        """The shard's replies as on disk now (the first line of a key wins)."""
        path, replies = self._path(shard), {}
        if not path.exists():
            return replies
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    key, reply = row["key"], row["reply"]
                    if not isinstance(reply, dict) or not key.startswith(shard):
                        raise ValueError("the key is not of this shard or the reply no object")
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    raise CorruptStoreError(f"{path}:{number}: not a stored reply ({exc}): "
                                            f"{line[:80]!r}") from None
                replies.setdefault(key, reply)
        return replies

    def _shard(self, key: str) -> dict[str, dict[str, Any]]:
        shard = key[:SHARD_HEX]
        if shard not in self._shards:
            self._shards[shard] = self._read(shard)
        return self._shards[shard]

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            return self._shard(key).get(key)

    def put(self, key: str, record: dict[str, Any]) -> None:
        """Store ``record`` under ``key`` unless the key is stored (then nothing is written)."""
        shard = key[:SHARD_HEX]
        # an exclusive lock on the shard across processes (root/.locks/, ignored by git)
        with self._lock, locked(self.root, shard):
            on_disk = self._read(shard)   # another process may have added lines since
            self._shards[shard] = on_disk
            if key in on_disk:
                return
            line = json.dumps({"key": key, "reply": record}, sort_keys=True, ensure_ascii=False)
            path = self._path(shard)
            old = path.read_bytes() if path.exists() else b""
            write_atomic(path, old + line.encode("utf-8") + b"\n")
            on_disk[key] = record

    def keys(self) -> list[str]:
        """Every stored key (reads every shard)."""
        with self._lock:
            paths = sorted(self.root.glob("*.jsonl")) if self.root.exists() else []
            return [key for path in paths for key in self._shard(path.stem + "0" * 62)]

    def __len__(self) -> int:
        return sum(1 for _ in self.keys())

    def close(self) -> None:
        """Nothing is held open between calls."""
