"""``DaskRunner``: a Kedro runner that runs each node as a task on a Dask cluster.

Adapted from the runner of Kedro's "Dask" deployment guide to Kedro 1.x's runner API:

- ``kedro run --runner kgp_kedro.runs.runner.DaskRunner`` needs no custom ``cli.py``: the cluster
  is chosen when the run starts, from the ``dask`` parameters (``--params dask.address=...``),
  else the ``DASK_SCHEDULER_ADDRESS`` environment variable (Dask's ``scheduler-address``
  setting), else a ``distributed.LocalCluster`` started for the run and closed after it
  (``dask.n_workers`` worker processes of ``dask.threads_per_worker`` threads). Keyword
  arguments of the runner (``--runner-params address=...``) come first.
- A node runs on a worker as :class:`kedro.runner.Task` runs it under the sequential runner,
  with the catalog it was given (the project's datasets resolve to absolute paths, which the
  workers must see: one machine, or a shared file system). Where the guide publishes every
  in-memory dataset on the scheduler, a node's in-memory outputs here are its task's result,
  which Dask hands worker-to-worker to the nodes that read them and frees once they have run.
  A memory dataset registered in the catalog before the run (a notebook's, a test's) gets its
  data back in this process, as under the sequential runner; the outputs Kedro's runtime
  pattern creates stay on the workers.
- Nodes whose inputs are ready run at the same time, on different workers; inside a node,
  :func:`kgp_kedro.plumbing.parallel.map` spreads its heavy per-item work over the same cluster.

Pipeline hooks (run integrity, parameter validation) run in this process; the project's node
and dataset hooks run on the worker that runs the node (it has none), the plugins' not at all.
"""
from __future__ import annotations

import logging
import os
from collections import Counter
from itertools import chain
from typing import TYPE_CHECKING, Any

from kedro.io import DataCatalog, MemoryDataset
from kedro.runner import AbstractRunner
from kedro.runner.task import Task

from kgp_kedro.config import validate
from kgp_kedro.config.sections import DaskParams

if TYPE_CHECKING:
    from kedro.io import CatalogProtocol
    from kedro.pipeline import Pipeline
    from kedro.pipeline.node import Node
    from pluggy import PluginManager

logger = logging.getLogger(__name__)

ADDRESS_VARIABLE = "DASK_SCHEDULER_ADDRESS"


def _run_node(node: Node, catalog: CatalogProtocol, memory: frozenset[str], is_async: bool,
              run_id: str | None, project: tuple[str | None, dict | None],
              *upstream: dict[str, Any]) -> dict[str, Any]:
    """On a worker: ``node`` with its in-memory inputs taken from the results of the nodes it
    depends on; returns its in-memory outputs. Kedro's :class:`~kedro.runner.task.Task` runs it
    with the project's hooks registered in this worker (a hook manager does not pickle). The
    plugins' hooks are left out here: theirs (kedro-viz's dataset statistics) keep state from
    the pipeline hooks, which run in the ``kedro run`` process."""
    from kedro.framework import project as kedro_project
    from kedro.framework.hooks.manager import _create_hook_manager, _register_hooks

    package, logging_config = project
    if package and kedro_project.PACKAGE_NAME != package:   # a fresh worker process
        kedro_project.configure_project(package)
        if logging_config:
            kedro_project.configure_logging(logging_config)
    for outputs in upstream:
        for name, data in outputs.items():
            if name in node.inputs:
                catalog[name] = MemoryDataset(data)
    hook_manager = _create_hook_manager()
    _register_hooks(hook_manager, kedro_project.settings.HOOKS)
    Task(node=node, catalog=catalog, is_async=is_async, hook_manager=hook_manager,
         run_id=run_id).execute()
    return {name: catalog.load(name) for name in node.outputs if name in memory}


def _node_catalog(catalog: CatalogProtocol, node: Node) -> DataCatalog:
    """The datasets ``node`` loads and saves, in a catalog of their own."""
    return DataCatalog(datasets={name: catalog.get(name) for name in node.inputs + node.outputs})


class DaskRunner(AbstractRunner):
    """Runs a pipeline's nodes on a Dask cluster, each node once its inputs exist.

    Args:
        address: the scheduler (``tcp://host:8786``); ``None``: the ``dask.address``
            parameter, then ``DASK_SCHEDULER_ADDRESS``, then a local cluster.
        n_workers, threads_per_worker: the local cluster's size when one is started (``None``:
            the ``dask`` parameters').
        client: a ``distributed.Client`` to use as it is (tests, notebooks); the runner then
            neither starts nor closes a cluster.
        is_async: load and save a node's datasets in threads (Kedro's ``--async``).
    """

    def __init__(self, address: str | None = None, n_workers: int | None = None,
                 threads_per_worker: int | None = None, client: Any = None,
                 is_async: bool = False) -> None:
        super().__init__(is_async=is_async)
        self._options = {"address": address, "n_workers": n_workers,
                         "threads_per_worker": threads_per_worker}
        self._given = client
        self._client: Any = None   # the client of the run in progress
        self._registered: set[str] = set()

    def run(self, pipeline: Pipeline, catalog: CatalogProtocol,
            hook_manager: PluginManager | None = None, run_id: str | None = None,
            only_missing_outputs: bool = False) -> dict[str, Any]:
        # before Kedro's warm-up adds a dataset for every name the pipeline uses
        self._registered = {name for name in pipeline.datasets() if name in catalog}
        if self._given is not None:
            return self._run_with(self._given, pipeline, catalog, hook_manager, run_id,
                                  only_missing_outputs)
        client, cluster = self._connect(catalog)
        try:
            return self._run_with(client, pipeline, catalog, hook_manager, run_id,
                                  only_missing_outputs)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    def _run_with(self, client: Any, *args: Any) -> dict[str, Any]:
        self._client = client
        try:
            with client.as_current():   # kgp_kedro.plumbing.parallel.map in this process uses it too
                return super().run(*args)
        finally:
            self._client = None

    def _settings(self, catalog: CatalogProtocol) -> DaskParams:
        """The ``dask`` parameters with the runner's own arguments over them, validated
        together (a bad ``--runner-params`` value is named as its ``dask.<key>``)."""
        raw = dict(catalog.load("params:dask") or {}) if "params:dask" in catalog else {}
        given = {key: value for key, value in self._options.items() if value is not None}
        return validate(DaskParams, {**raw, **given}, "dask")

    def _connect(self, catalog: CatalogProtocol) -> tuple[Any, Any]:
        """A client of the configured scheduler, or of a local cluster started for the run."""
        import dask
        from distributed import Client, LocalCluster

        params = self._settings(catalog)
        address = (params.address or os.environ.get(ADDRESS_VARIABLE)
                   or dask.config.get("scheduler-address", None))
        if address:
            client = Client(address)
            logger.info("Dask: scheduler %s, %d workers", address,
                        len(client.scheduler_info().get("workers", {})))
            return client, None
        # the dashboard on a free port (8787 may be another cluster's)
        cluster = LocalCluster(n_workers=params.n_workers,
                               threads_per_worker=params.threads_per_worker, processes=True,
                               dashboard_address=":0")
        client = Client(cluster)
        logger.info("Dask: no scheduler configured (dask.address, %s): a local cluster of %d "
                    "workers x %d threads, dashboard %s", ADDRESS_VARIABLE,
                    len(cluster.workers), params.threads_per_worker, client.dashboard_link)
        return client, cluster

    def _get_executor(self, max_workers: int) -> None:
        return None   # the nodes go to the cluster (_run), not to an executor

    def _run(self, pipeline: Pipeline, catalog: CatalogProtocol,
             hook_manager: PluginManager | None = None, run_id: str | None = None) -> None:
        from distributed import as_completed
        from kedro.framework.project import LOGGING, PACKAGE_NAME

        client = self._client
        # what a fresh worker process configures before its first node (LOGGING as a plain
        # dict: the live object would end up holding itself)
        project = (PACKAGE_NAME, dict(LOGGING) if PACKAGE_NAME else None)
        nodes = pipeline.nodes
        memory = frozenset(name for name in pipeline.datasets()
                           if name not in pipeline.inputs()
                           and isinstance(catalog.get(name), MemoryDataset))
        dependencies = pipeline.node_dependencies
        # how many nodes still read each node's results: a result no node needs is let go
        readers = Counter(chain.from_iterable(dependencies[n] for n in nodes))
        futures: dict[Node, Any] = {}
        for node in nodes:   # topological order: a node's dependencies are submitted first
            # a catalog of the node's datasets only, sent as data (not in the task graph): a
            # pipeline input held in memory travels to the nodes that read it, and the worker
            # fills in the task's own copy
            own = client.scatter(_node_catalog(catalog, node), hash=False)
            futures[node] = client.submit(
                _run_node, node, own, memory, self._is_async, run_id, project,
                *(futures[d] for d in dependencies[node]),
                key=f"{node.name}-{run_id or 'run'}-{id(node)}", pure=False)
        done: set[Node] = set()
        by_key = {future.key: node for node, future in futures.items()}
        try:
            for future in as_completed(list(futures.values())):
                node = by_key[future.key]
                outputs = future.result()   # raises the node's own exception
                for name, data in outputs.items():
                    if name in self._registered or name in pipeline.outputs():
                        catalog.save(name, data)
                done.add(node)
                self._logger.info("Completed node: %s", node.name)
                self._logger.info("Completed %d out of %d tasks", len(done), len(nodes))
                for upstream in dependencies[node]:
                    readers[upstream] -= 1
                    if readers[upstream] < 1:
                        futures.pop(upstream, None)
                if readers[node] < 1:
                    futures.pop(node, None)
        except Exception:
            client.cancel(list(futures.values()))
            self._suggest_resume_scenario(pipeline, done, catalog)
            raise
