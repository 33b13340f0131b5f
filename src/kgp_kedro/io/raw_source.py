"""The raw layer: one read-only catalog dataset per ``ingest.sources`` entry.

Each configured source (dataset, path, limit, optional name) becomes the catalog dataset
``raw_<source name>`` (:func:`raw_source_names`), a :class:`RawSourceDataset` in the kedro-viz
layer ``raw``, whose load is what :func:`kgp_kedro.corpus.sources.read_source_with_skipped`
returns for that source. :func:`raw_source_catalog` gives their catalog entries, built from the
session's parameters by the project's config loader (so ``--env`` and ``--params`` change them
exactly as they change the nodes' parameters, and ``kedro viz`` and ``kedro catalog`` see them
without hooks); the ingest pipeline takes them as its inputs.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kedro.io import AbstractDataset, DatasetError

from kgp_kedro.config.base import ParameterError

if TYPE_CHECKING:
    from kedro_datasets._typing import TablePreview

    from kgp_kedro.corpus.sources import SourceRead

LAYER = "raw"
PREFIX = "raw_"


def source_names(sources: list[Any]) -> list[str]:
    """The ``source`` of each entry's rows: ``name`` when given, else the dataset; repeated
    datasets get their file stem appended. Repeated names are a :class:`ParameterError`."""
    counts = Counter(s.dataset for s in sources if not s.name)
    names = [s.name or (s.dataset if counts[s.dataset] == 1 else f"{s.dataset}_{Path(s.path).stem}")
             for s in sources]
    if len(set(names)) != len(names):
        raise ParameterError("ingest.sources", f"repeated source names {names}: give each "
                             "entry a distinct `name`")
    return names


def raw_source_names(sources: list[Any]) -> list[str]:
    """The catalog name of each source's dataset: ``raw_<source name>``, characters other than
    letters, digits and ``_`` replaced by ``_`` (a dot would read as a namespace)."""
    names = [PREFIX + re.sub(r"\W", "_", name, flags=re.ASCII) for name in source_names(sources)]
    if len(set(names)) != len(names):
        raise ParameterError("ingest.sources", f"source names {source_names(sources)} give "
                             f"repeated dataset names {names}: rename one entry (`name`)")
    return names


def raw_source_catalog(parameters: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Catalog entries (as in ``catalog.yml``) of the raw dataset of every ``ingest.sources``
    entry of a parameter tree (as the config loader merged it); none without ``ingest``."""
    from kgp_kedro.config import validate
    from kgp_kedro.config.sections import IngestParams

    if not parameters.get("ingest"):
        return {}
    ingest = validate(IngestParams, parameters["ingest"], "ingest")
    sources = ingest.sources
    return {name: {"type": f"{__name__}.RawSourceDataset", "dataset": source.dataset,
                   "path": source.path, "limit": ingest.limit_of(source), "source": source_name,
                   "param_key": f"ingest.sources[{i}]", "questions": source.questions,
                   "parse_cache": ingest.parse_cache,
                   "metadata": {"kedro-viz": {"layer": LAYER, "preview_args": {"nrows": 5}}}}
            for i, (source, name, source_name) in enumerate(
                zip(sources, raw_source_names(sources), source_names(sources)))}


def raw_source_datasets(parameters: Mapping[str, Any]) -> dict[str, RawSourceDataset]:
    """The datasets of :func:`raw_source_catalog`, for a catalog built outside a session."""
    return {name: RawSourceDataset(**{k: v for k, v in entry.items() if k != "type"})
            for name, entry in raw_source_catalog(parameters).items()}


class RawSourceDataset(AbstractDataset[None, "SourceRead"]):
    """One native dataset file (or ``documents`` folder), read-only. ``load`` returns the
    source's questions, documents and skipped files
    (:class:`~kgp_kedro.corpus.sources.SourceRead`); a malformed file raises an error naming the
    file and the record, a bad ``limit`` or ``dataset`` one naming ``param_key``.

    Args:
        dataset: ``hotpotqa``, ``musique``, ``2wikimultihopqa`` or ``documents``.
        path: the file (a ``documents`` folder).
        limit: the first N questions; None: all.
        source: the rows' ``source`` (default: ``dataset``).
        param_key: the parameter key of this source, e.g. ``ingest.sources[0]``.
        questions: a documents folder's questions from elsewhere (a file or a list).
        parse_cache: where a documents folder's parsed files are kept (``ingest.parse_cache``).
        metadata: free metadata (kedro-viz's layer).
    """

    def __init__(self, *, dataset: str, path: str, limit: int | None = None,
                 source: str | None = None, param_key: str | None = None,
                 questions: str | list[str] | None = None, parse_cache: str | None = None,
                 metadata: dict[str, Any] | None = None) -> None:
        self._dataset, self._path, self._limit = dataset, str(path), limit
        self._questions, self._parse_cache = questions, parse_cache
        self._source = source or dataset
        self._param_key = param_key
        self.metadata = metadata

    def load(self) -> SourceRead:
        from kgp_kedro.corpus.sources import read_source_with_skipped

        return read_source_with_skipped(self._dataset, self._path, self._source, self._limit,
                                        param_key=self._param_key, questions=self._questions,
                                        parse_cache=self._parse_cache)

    def save(self, data: Any) -> None:
        where = f" ({self._param_key})" if self._param_key else ""
        raise DatasetError(f"{self._path} is a raw {self._dataset} source{where}: read-only. "
                           "Nodes read raw sources; change ingest.sources to read another file.")

    def _describe(self) -> dict[str, Any]:
        return {"dataset": self._dataset, "path": self._path, "limit": self._limit,
                **({"questions": self._questions} if self._questions is not None else {})}

    def _exists(self) -> bool:
        return Path(self._path).exists()

    def check_exists(self) -> None:
        """Raise ``FileNotFoundError`` naming the parameter key when the path does not exist
        (the reader's own message), before anything is read."""
        from kgp_kedro.corpus.sources import require_source_path

        require_source_path(self._dataset, self._path, self._param_key)

    def preview(self, nrows: int = 5) -> TablePreview:
        """The first ``nrows`` questions, kedro-viz's table preview (its type is read from
        this annotation's name)."""
        import pandas as pd

        from kgp_kedro.corpus.sources import read_source_with_skipped
        from kgp_kedro.corpus.schema import QUESTION_COLUMNS

        limit = nrows if self._limit is None else min(nrows, self._limit)
        rows = read_source_with_skipped(self._dataset, self._path, self._source, limit,
                                        questions=self._questions).questions
        return pd.DataFrame(rows, columns=QUESTION_COLUMNS).to_dict(orient="split")
