"""The dataset reader interface and its registry, keyed by ``ingest.sources[i].dataset``.

A dataset format is one module with a :class:`DatasetReader` subclass registered with
``@DATASET_READERS.register("<dataset>")``; :func:`kgp_kedro.corpus.sources.read_source`
finds it by the source's ``dataset`` and adds the checks made across a whole source.
"""
from __future__ import annotations

from pathlib import Path

from kgp_kedro.corpus.sources.rows import Rows
from kgp_kedro.plumbing.registry import Registry


class DatasetReader:
    """Reads one dataset's native format into ``(questions, documents)`` row lists (the
    layout of :mod:`kgp_kedro.corpus.schema`)."""

    name: str
    # the file holding the questions, relative to a source's path (None: the path itself)
    questions_file: str | None = None
    # the keyword options :meth:`read` takes beyond the common ones (a documents folder:
    # questions given apart, the parse cache)
    options: tuple[str, ...] = ()

    def read(self, path: Path, source: str, limit: int | None, skipped: Rows
             ) -> tuple[Rows, Rows]:
        """The questions and documents of ``path`` (the first ``limit`` questions); files
        not read are appended to ``skipped`` (a folder's readers only)."""
        raise NotImplementedError

    def questions_path(self, path: Path) -> Path:
        return path / self.questions_file if self.questions_file else path


DATASET_READERS: Registry[DatasetReader] = Registry("dataset", "kgp_kedro.corpus.sources")
