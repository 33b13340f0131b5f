"""An ask session over any folder of documents, for the ask app (notebooks/ask_app.ipynb,
:class:`~kgp_kedro.asking.app.AskApp`): the ask chain's own nodes (ingest -> passages ->
embed -> kg) run in memory up to the tables the session reads
(:func:`~kgp_kedro.pipelines.ask.session.session_datasets`), with the project's ask
parameters and their content-keyed caches (a folder opened again after a file was added
parses, splits and encodes that file alone, docs/ask.md), then the notebook's session over
them (:func:`~kgp_kedro.pipelines.ask.session.open_session`). No run is recorded and nothing
is written to ``data/`` but the caches."""
from __future__ import annotations

import copy
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from kgp_kedro.asking.app import AskApp
from kgp_kedro.asking.session import AskSession
from kgp_kedro.config.base import setting_label
from kgp_kedro.config.sections import with_ask_folder
from kgp_kedro.llm import LLMClient
from kgp_kedro.pipelines.ask.session import open_session, session_datasets, session_method
from kgp_kedro.pipelines.chains import build_pipelines
from kgp_kedro.pipelines.in_memory import parameter_catalog, run_in_memory


@dataclass(frozen=True)
class OpenFolder:
    """A folder's ask session and the KG its traversal figure is drawn over."""

    session: AskSession
    nodes: pd.DataFrame
    edges: pd.DataFrame
    setting: str


@contextmanager
def _working_folder(path: Path) -> Iterator[None]:
    """The parameters' relative paths (the caches, the model folder) resolved from ``path``, as
    ``kedro run`` resolves them from the project folder."""
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


# the one question the ingest stage needs to read a folder (a documents source asks at least
# one); it is not asked: the app's questions go to the session
OPENING_QUESTION = "What do these documents say?"


def folder_parameters(parameters: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """The ask env's ``parameters`` with ``folder`` as the one ingest source, as ``--params
    ask.folder=<folder>,ask.question=...`` sets it
    (:func:`~kgp_kedro.config.sections.with_ask_folder`), asking :data:`OPENING_QUESTION`."""
    raw = copy.deepcopy(dict(parameters))
    raw["ask"].update(folder=str(folder), questions=None, question=OPENING_QUESTION)
    return dict(with_ask_folder(raw))


def open_folder(parameters: Mapping[str, Any], folder: Path, project_path: Path,
                client: LLMClient | None = None) -> OpenFolder:
    """The ask session over ``folder`` (module docstring; a relative path is under the project
    folder, as ``ask.folder`` of a ``kedro run`` in it); ``client``: the reader of a session
    already open, kept (else the ask env's reader is loaded)."""
    project = Path(project_path)
    raw = folder_parameters(parameters, (project / Path(folder).expanduser()).resolve())
    catalog = parameter_catalog(raw)
    method = session_method(catalog, project)
    names = session_datasets(catalog, method)
    with _working_folder(project):
        data = run_in_memory(build_pipelines(raw)["ask"].to_outputs(*names), raw)
    graph = raw["retrieve"]["graph"]
    variant = graph["variant"]
    return OpenFolder(open_session(catalog, data, method, project, client),
                      data.get(f"kg_nodes_{variant}"), data.get(f"kg_edges_{variant}"),
                      setting_label(graph["setting"]))


def ask_app(catalog, project_path: Path) -> AskApp:
    """The app over the notebook's ``catalog`` (``%reload_kedro --env ask``): uploads written
    into ``ask.uploads`` (under the project folder), the folder field set to ``ask.folder``;
    each folder opened by :func:`open_folder`, the reader loaded once."""
    parameters = catalog.load("parameters")
    project = Path(project_path)
    ask = parameters["ask"]

    def opened(folder: Path, before: OpenFolder | None) -> OpenFolder:
        return open_folder(parameters, folder, project,
                           before.session.client if before is not None else None)

    return AskApp(opened, project / ask["uploads"], ask.get("folder"))
