"""Each collection's built graph kept on disk by a digest of everything it is built from, so
that adding or removing documents, questions or sources rebuilds only the collections they
change (issue 23: incremental add / remove).

An entry's key is the sha256 of

- the *builder identity*: :data:`CACHE_FORMAT`, the builder's registered name, its ``version``,
  its options and every density setting of the sweep (labels and values), its extra options
  (e.g. a faiss index), a fingerprint of the graph code (every module of
  :mod:`kgp_kedro.graphs`, the builder's own module and :mod:`kgp_kedro.corpus.collection`)
  and the versions of the numeric libraries the builders call;
- the *collection content*: its id, its passages (ids, texts, documents, titles, supporting
  flags, and for a collection read from files the rows the structural layer reads), its
  passage embeddings (the exact vectors, with the encoder's name) and the builder's
  per-passage features of its passages (:meth:`GraphBuilder.features_of`, e.g. entity
  mentions).

A collection whose passages and parameters are unchanged is therefore read back, never built;
any change (one passage, one setting, one vector, a new scikit-learn) makes a new key. An entry
is a folder holding the collection's ``kg_nodes`` rows and its ``kg_edges`` rows per setting
as Feather (Arrow IPC) files, categorical columns with their categories, so a graph read back
is the table the build made, equal to the last category. It is written to a temporary folder
renamed into place: a killed run leaves no half entry (at most a ``.tmp`` folder, ignored).
An entry that cannot be read is logged, removed and rebuilt. Delete the folder to empty the
cache; nothing evicts old entries (it takes about the room of the KG files it reproduces).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather

from kgp_kedro.config.base import Params
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs.builders.base import GraphBuilder
from kgp_kedro.models.cache import identity_digest, package_version

logger = logging.getLogger(__name__)

CACHE_FORMAT = 1   # bump when an entry's layout changes
LIBRARIES = ("numpy", "pandas", "scipy", "scikit-learn", "torch", "faiss-cpu", "spacy")
_GRAPH_CODE = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def code_fingerprint(*modules: str) -> str:
    """sha256 over the source of every module of :mod:`kgp_kedro.graphs` and of ``modules``
    (file paths): an edited builder retires its entries without a version bump (a builder
    defined where there is no file, e.g. a notebook, is covered by its ``version`` alone)."""
    files = sorted({*_GRAPH_CODE.rglob("*.py"), *(Path(m).resolve() for m in modules)})
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.as_posix().encode() + b"\0" + file.read_bytes() + b"\n")
    return digest.hexdigest()


def builder_identity(builder: GraphBuilder, settings: Sequence[tuple[str, Params]],
                     options: dict[str, Any] | None = None) -> dict[str, Any]:
    """What besides a collection's content decides its graphs (see the module)."""
    modules = [file for cls in (type(builder), Collection)
               if (file := getattr(sys.modules.get(cls.__module__), "__file__", None))]
    return {"cache": "kg collections", "format": CACHE_FORMAT, "builder": builder.name,
            "version": builder.version, "params": builder.params.model_dump(mode="json"),
            "settings": [[label, setting.model_dump(mode="json")] for label, setting in settings],
            "options": options or {}, "code": code_fingerprint(*modules),
            **{name: package_version(name) for name in LIBRARIES}}


class GraphCache:
    """Per-collection graphs of one builder and sweep in ``directory`` (see the module);
    ``hits`` and ``misses`` count the collections read back and built since it was made."""

    def __init__(self, directory: str | os.PathLike, builder: GraphBuilder,
                 settings: Sequence[tuple[str, Params]],
                 options: dict[str, Any] | None = None) -> None:
        self.directory = Path(directory)
        self.builder = builder
        self.identity = builder_identity(builder, settings, options)
        self._prefix = identity_digest(self.identity)
        self.hits = self.misses = 0

    def key(self, collection: Collection, structure: pd.DataFrame | None) -> str:
        """The digest of ``collection``'s content under this cache's builder identity."""
        digest = hashlib.sha256(self._prefix.encode())
        digest.update(json.dumps([collection.collection_id, collection.passage_ids,
                                  collection.texts, collection.doc_ids, collection.titles,
                                  collection.supporting,
                                  self.builder.features_of(collection)],
                                 default=str, separators=(",", ":")).encode())
        if structure is not None:
            digest.update(b"structure\0" + structure.to_json(orient="split",
                                                             index=False).encode())
        if collection.vectors is not None:
            vectors = np.ascontiguousarray(collection.vectors)
            digest.update(f"vectors\0{collection.embedding_model}\0{vectors.dtype}"
                          f"\0{vectors.shape}\0".encode())
            digest.update(vectors.tobytes())
        return digest.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / key

    def get(self, key: str) -> tuple[pd.DataFrame, list[pd.DataFrame]] | None:
        """The collection's ``(kg_nodes rows, [kg_edges rows per setting])``, or ``None``."""
        entry = self._entry(key)
        try:
            listed = json.loads((entry / "entry.json").read_text())
            nodes = feather.read_feather(entry / "nodes.arrow")
            edges = [feather.read_feather(entry / f"edges-{i}.arrow")
                     for i in range(listed["settings"])]
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, ValueError, KeyError, pa.ArrowException) as exc:
            logger.warning("kg cache %s: entry %s unreadable (%s), rebuilt", self.directory,
                           key, exc)
            shutil.rmtree(entry, ignore_errors=True)   # so that the rebuilt one replaces it
            self.misses += 1
            return None
        self.hits += 1
        return nodes, edges

    def put(self, key: str, nodes: pd.DataFrame, edges: Sequence[pd.DataFrame]) -> None:
        """Store one collection's tables (written aside, then renamed into place); a cache
        that cannot be written is logged and the run goes on."""
        entry = self._entry(key)
        if entry.exists():
            return
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=entry.parent, prefix=f".{key}.", suffix=".tmp"))
            try:
                feather.write_feather(nodes.reset_index(drop=True), tmp / "nodes.arrow")
                for i, frame in enumerate(edges):
                    feather.write_feather(frame.reset_index(drop=True), tmp / f"edges-{i}.arrow")
                (tmp / "entry.json").write_text(json.dumps({"settings": len(edges)}))
                os.replace(tmp, entry)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
        except OSError as exc:
            if entry.exists():   # a concurrent run stored it first
                return
            logger.warning("kg cache %s not written (%s)", self.directory, exc)

    def describe(self) -> str:
        return f"{self.hits} collections from the cache {self.directory}, {self.misses} built"
