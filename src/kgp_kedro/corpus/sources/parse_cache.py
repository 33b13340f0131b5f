"""The parse of each file of a documents folder cached by the file's content (sha256), like the
embeddings and mentions caches (:mod:`kgp_kedro.models.cache`): re-reading an unchanged folder
parses no file, and a changed (or new) file is parsed alone.

An entry is what the file's reader gave (:class:`~kgp_kedro.corpus.sources.formats.FileContent`
as JSON), or the :class:`~kgp_kedro.corpus.sources.formats.FileReadError` reason when it could
not be read (an unchanged unreadable file is not tried again). Its identity holds
the digest of the readers' own code (:func:`readers_digest` of :data:`READERS`, every
module of :mod:`kgp_kedro.corpus.sources.formats`) and the versions of the extraction libraries, so a
changed reader or a new pdfplumber, pypdfium2, python-docx or BeautifulSoup parses again
with nobody having to remember to say so (a format number bumped by hand was once forgotten,
and a machine's cache kept an older PDF parse). Cached content is never compared with a path
or a name: two files with the same bytes share one entry.
"""
from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

from kgp_kedro.plumbing import parallel
from kgp_kedro.corpus.sources import formats
from kgp_kedro.corpus.sources.formats import FileReadError, read_file
from kgp_kedro.corpus.sources.formats.base import Block, FileContent, PageProblem
from kgp_kedro.models.cache import cached_map, file_sha256, open_cache, package_version

logger = logging.getLogger(__name__)

LIBRARIES = ("pdfplumber", "pdfminer.six", "pypdfium2", "python-docx", "beautifulsoup4",
             "lxml")
READERS = Path(formats.__file__).parent


@lru_cache(maxsize=None)
def readers_digest(folder: Path) -> str:
    """The sha256 of the modules under ``folder`` (their names and bytes, in name order),
    read once a process."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _identity(_memo: Any) -> dict[str, Any]:
    return {"cache": "parsed files", "readers": readers_digest(READERS),
            **{name: package_version(name) for name in LIBRARIES}}


def _parse(path: Path) -> dict[str, Any]:
    try:
        content = read_file(path)
    except FileReadError as exc:
        return {"error": exc.reason, "page": exc.page}
    return {"content": asdict(content)}


def _result(value: dict[str, Any], path: Path) -> FileContent | FileReadError:
    if "error" in value:
        return FileReadError(path, value["error"], value["page"])
    content = dict(value["content"])
    blocks = [Block(**{**b, "bbox": tuple(b["bbox"]) if b.get("bbox") else None})
              for b in content.pop("blocks")]
    problems = [PageProblem(**p) for p in content.pop("problems")]
    return FileContent(blocks=blocks, problems=problems, **content)


def read_files(paths: list[Path], cache_dir: str | None,
               desc: str = "read") -> list[FileContent | FileReadError]:
    """Each file of ``paths`` read by the reader of its type, or the error it gave; from the
    cache in ``cache_dir`` where its content was parsed before (``None``: no cache). The files
    missing from it are parsed one task each, spread over a Dask cluster's workers when one is
    active (:func:`kgp_kedro.plumbing.parallel.map`)."""
    by_hash = {}
    hashes = []
    for path in paths:
        digest = file_sha256(path)
        by_hash.setdefault(digest, path)
        hashes.append(digest)

    def parse(missing: list[str]) -> list[dict[str, Any]]:
        return parallel.map(_parse, [by_hash[h] for h in missing], desc=desc)

    cache = open_cache(cache_dir, _identity, json.dumps, json.loads)
    try:
        values, stats = cached_map(hashes, parse, cache)
    finally:
        if cache is not None:
            cache.close()
    logger.info("Parsed files: %s", stats.describe("files"))
    return [_result(value, path) for value, path in zip(values, paths)]
