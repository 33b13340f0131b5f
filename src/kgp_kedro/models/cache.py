"""Persistent per-text caches of model outputs (passage embeddings, entity mentions), so that an
unchanged re-run computes nothing.

A :class:`TextCache` is a `diskcache <https://grantjenks.com/docs/diskcache/>`_ directory (one
SQLite database) holding ``value = f(text)`` for one *model identity*: a JSON-able mapping of
everything that changes the output (model name, a fingerprint of its files, dtype,
normalisation, library versions, ...). An entry's key is ``<identity digest>/<sha256 of the
text>``; two identities never share an entry, and several identities may live in one directory.

- :func:`cached_map` looks every text up, computes only the missing ones (each distinct text
  once, in one call of ``compute``, in input order) and stores them in one SQLite transaction.
- Torn writes: values here are small (under diskcache's 32 KiB ``disk_min_file_size``), so each
  one lives inline in its SQLite row, and a batch is written inside ``Cache.transact()``: a
  process killed mid-write leaves an uncommitted transaction that SQLite's WAL rolls back on the
  next open, never a partial entry. A value that does not decode (wrong length, bad JSON) is
  treated as missing and recomputed.
- Concurrency: diskcache is thread- and process-safe (SQLite locking), so parallel runners or
  two ``kedro run`` may share a directory.
- A cache that cannot be opened or read (corrupt file, read-only disk) is logged as a warning
  and the run computes everything, as without a cache.
- Size: diskcache's default 1 GiB limit with least-recently-stored eviction; an all-MiniLM
  vector takes about 2 KiB, so a million passages fit. Delete the directory to empty it.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

# files of a local model directory that are not part of the model
_IGNORED_PARTS = {".git", ".cache", "__pycache__", ".locks"}


def text_hash(text: str) -> str:
    """sha256 of a text's UTF-8 bytes (hex)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def identity_digest(identity: Mapping[str, Any]) -> str:
    """A short stable digest of a model identity (sorted-key JSON)."""
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def path_fingerprint(path: str | os.PathLike, memo: Any = None) -> str:
    """sha256 over the relative names and contents of the files under ``path`` (a file or a
    model directory; ``.git`` and cache folders skipped): it changes when the weights or the
    configuration change, and not when the same files are re-installed elsewhere.

    Hashing reads every byte (about 0.2 s for all-MiniLM-L6-v2's 90 MB); ``memo`` (a mapping,
    e.g. the :class:`diskcache.Cache` itself) keeps each file's hash under its absolute path,
    size and mtime, so an unchanged model is hashed once.
    """
    root = Path(path).expanduser().resolve()
    files = [root] if root.is_file() else sorted(
        p for p in root.rglob("*")
        if p.is_file() and not _IGNORED_PARTS.intersection(p.relative_to(root).parts))
    digest = hashlib.sha256()
    for file in files:
        stat = file.stat()
        key = f"file-sha256/{file}/{stat.st_size}/{stat.st_mtime_ns}"
        sha = memo.get(key) if memo is not None else None
        if sha is None:
            sha = file_sha256(file)
            if memo is not None:
                memo[key] = sha
        name = file.name if file == root else file.relative_to(root).as_posix()
        digest.update(f"{name}\0{sha}\n".encode())
    return digest.hexdigest()


def package_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or ``None``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


@dataclass
class CacheStats:
    total: int = 0        # texts asked for
    cached: int = 0       # of them, served from the cache
    computed: int = 0     # distinct texts computed (a text asked for twice is computed once)
    seconds: float = 0.0  # the whole lookup + compute + store
    compute_seconds: float = 0.0

    def describe(self, unit: str) -> str:
        """E.g. ``19496 passages: 0 cached, 19496 computed (18365 distinct texts, 61 texts/s)
        in 301.2 s``."""
        rate = (f"{self.computed} distinct texts, "
                f"{self.computed / max(self.compute_seconds, 1e-9):.0f} texts/s"
                if self.computed else "nothing computed")
        return (f"{self.total} {unit}: {self.cached} cached, {self.total - self.cached} "
                f"computed ({rate}) in {self.seconds:.1f} s")


class TextCache:
    """``text -> value`` for one model identity, in a diskcache directory.

    ``encode`` turns a value into what is stored (bytes or str, kept inline in SQLite) and
    ``decode`` turns it back; ``decode`` raising ``ValueError`` marks a bad entry (recomputed).
    """

    def __init__(self, directory: str | os.PathLike, identity: Mapping[str, Any],
                 encode: Callable[[Any], bytes | str], decode: Callable[[Any], Any]) -> None:
        import diskcache

        self.directory = Path(directory)
        self.identity = dict(identity)
        self.prefix = identity_digest(self.identity)
        self._encode, self._decode = encode, decode
        self.directory.mkdir(parents=True, exist_ok=True)
        self._cache = diskcache.Cache(str(self.directory))
        # a readable record of what the prefix stands for (for whoever opens the cache)
        record = f"identity/{self.prefix}"
        if self._cache.get(record) is None:
            self._cache.set(record, json.dumps(self.identity, sort_keys=True, default=str))

    def close(self) -> None:
        self._cache.close()

    def __enter__(self) -> TextCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def key(self, text: str) -> str:
        return f"{self.prefix}/{text_hash(text)}"

    def get_many(self, texts: Iterable[str]) -> dict[str, Any]:
        """``text -> value`` of the distinct ``texts`` found (undecodable entries left out)."""
        found: dict[str, Any] = {}
        with self._cache.transact():   # one read transaction: a consistent snapshot, faster
            for text in dict.fromkeys(texts):
                raw = self._cache.get(self.key(text))
                if raw is None:
                    continue
                try:
                    found[text] = self._decode(raw)
                except (ValueError, TypeError):
                    logger.warning("cache %s: a bad entry for one text, recomputed", self.directory)
        return found

    def set_many(self, items: Mapping[str, Any]) -> None:
        """Store ``text -> value`` pairs in one transaction (all or none)."""
        with self._cache.transact():
            for text, value in items.items():
                self._cache.set(self.key(text), self._encode(value))

    def __len__(self) -> int:
        return sum(1 for k in self._cache.iterkeys() if str(k).startswith(self.prefix + "/"))


def open_cache(directory: str | os.PathLike | None, identity: Callable[[Any], Mapping[str, Any]],
               encode: Callable[[Any], bytes | str], decode: Callable[[Any], Any]
               ) -> TextCache | None:
    """A :class:`TextCache` in ``directory`` (``None``: caching off), its identity made by
    ``identity(memo)`` (``memo``: the cache, for :func:`path_fingerprint`); ``None`` with a
    warning when the directory cannot be used."""
    if directory is None:
        return None
    import diskcache

    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
        with diskcache.Cache(str(directory)) as memo:
            ident = identity(memo)
        return TextCache(directory, ident, encode, decode)
    except (OSError, sqlite3.Error) as exc:
        logger.warning("cache %s unusable (%s: %s): computing without it", directory,
                       type(exc).__name__, exc)
        return None


def cached_map(texts: Sequence[str], compute: Callable[[list[str]], Sequence[T]],
               cache: TextCache | None) -> tuple[list[T], CacheStats]:
    """``[f(t) for t in texts]``, where ``compute(list_of_texts)`` is ``f`` over a batch: values
    found in ``cache`` are reused; the other distinct texts are computed in one call, in the
    order they first appear, and stored. Without a cache (``None``) the same call computes every
    distinct text, so a cold cache gives exactly what no cache gives."""
    start = time.perf_counter()
    stats = CacheStats(total=len(texts))
    found: dict[str, T] = {}
    if cache is not None:
        try:
            found = cache.get_many(texts)
        except sqlite3.Error as exc:
            logger.warning("cache %s unreadable (%s): computing without it", cache.directory, exc)
            cache = None
    missing = [t for t in dict.fromkeys(texts) if t not in found]
    if missing:
        compute_start = time.perf_counter()
        new = list(compute(missing))
        stats.compute_seconds = time.perf_counter() - compute_start
        if len(new) != len(missing):
            raise ValueError(f"computed {len(new)} values for {len(missing)} texts")
        fresh = dict(zip(missing, new))
        if cache is not None:
            try:
                cache.set_many(fresh)
            except sqlite3.Error as exc:
                logger.warning("cache %s not written (%s)", cache.directory, exc)
        found.update(fresh)
    stats.computed = len(missing)
    computed = set(missing)
    stats.cached = sum(1 for t in texts if t not in computed)
    stats.seconds = time.perf_counter() - start
    return [found[t] for t in texts], stats
