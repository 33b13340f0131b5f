"""The parse of each file of a documents folder cached by the file's content (sha256), like the
embeddings and mentions caches (:mod:`kgp_kedro.models.cache`): re-reading an unchanged folder
parses no file, and a changed (or new) file is parsed alone.

An entry is what the file's reader gave (:class:`~kgp_kedro.corpus.sources.formats.FileContent`
as JSON), or the :class:`~kgp_kedro.corpus.sources.formats.FileReadError` reason when it could
not be read (an unchanged unreadable file is not tried again). Its identity holds
:data:`PARSE_FORMAT` and the versions of the extraction libraries, so a new pdfplumber,
pypdfium2, python-docx or BeautifulSoup (or a change of the readers, bumping
:data:`PARSE_FORMAT`) parses again. Cached content is never compared with a path or a name: two files with the same bytes
share one entry.
"""
from __future__ import annotations

import json
import logging
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kgp_kedro.plumbing import parallel
from kgp_kedro.corpus.sources.formats import FileReadError, read_file
from kgp_kedro.corpus.sources.formats.base import Block, FileContent, PageProblem
from kgp_kedro.models.cache import cached_map, file_sha256, open_cache, package_version

logger = logging.getLogger(__name__)

PARSE_FORMAT = 2   # bump when a reader's output changes (2: PDF text read by PDFium)
LIBRARIES = ("pdfplumber", "pdfminer.six", "pypdfium2", "python-docx", "beautifulsoup4",
             "lxml")


def _identity(_memo: Any) -> dict[str, Any]:
    return {"cache": "parsed files", "format": PARSE_FORMAT,
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
