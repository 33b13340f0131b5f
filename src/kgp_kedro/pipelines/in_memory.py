"""Running a chain of stages on an in-memory catalog (as the Kedro starters test pipelines):
what the wiring tests and the benchmarks use, so they run exactly the nodes ``kedro run``
runs, with the project's validated parameters, and write nothing to ``data/``."""
from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

import pandas as pd

from kedro.io import DataCatalog, MemoryDataset
from kedro.pipeline import Pipeline
from kedro.runner import AbstractRunner, SequentialRunner

from kgp_kedro.io.raw_source import raw_source_datasets
from kgp_kedro.graphs.build import GraphTables
from kgp_kedro.models.embeddings import EmbeddingLookup


class _KeptDataset(MemoryDataset):
    """A memory dataset the runner does not empty after its last consumer ran (the runner
    calls the public ``release``)."""

    def release(self) -> None:
        pass


def parameter_entries(raw: Mapping[str, Any]) -> dict[str, Any]:
    """``parameters`` and every ``params:<dotted key>`` of a parameter tree, as a Kedro
    context adds them to its catalog."""
    entries: dict[str, Any] = {"parameters": dict(raw)}

    def add(key: str, value: Any) -> None:
        entries[f"params:{key}"] = value
        if isinstance(value, Mapping):
            for sub, inner in value.items():
                add(f"{key}.{sub}", inner)

    for key, value in raw.items():
        add(key, value)
    return entries


def parameter_catalog(raw: Mapping[str, Any]) -> DataCatalog:
    """A catalog of ``raw``'s :func:`parameter_entries` alone (``catalog.load("params:ask")``
    as in a Kedro context)."""
    catalog = DataCatalog()
    for name, value in parameter_entries(raw).items():
        catalog[name] = MemoryDataset(value, copy_mode="assign")
    return catalog


def run_in_memory(pipeline: Pipeline, raw_params: Mapping[str, Any],
                  inputs: Mapping[str, Any] | None = None,
                  runner: AbstractRunner | None = None) -> dict[str, Any]:
    """Run ``pipeline`` with ``raw_params`` (and the raw sources its ``ingest.sources`` name)
    and the given input ``inputs``, by ``runner`` (the sequential runner when not given); every
    dataset it reads or writes is returned by name (nothing is saved to disk)."""
    catalog = parameter_catalog(raw_params)
    for name, dataset in raw_source_datasets(raw_params).items():
        catalog[name] = dataset
    for name, value in (inputs or {}).items():
        catalog[name] = _KeptDataset(value, copy_mode="assign")
    for name in pipeline.datasets():
        if name not in catalog:
            catalog[name] = _KeptDataset(copy_mode="assign")
    (runner or SequentialRunner()).run(pipeline, catalog)
    return {name: catalog[name].load() for name in pipeline.datasets()
            if not (name == "parameters" or name.startswith("params:"))}


def run_chain(chain: str, raw_params: Mapping[str, Any],
              to_outputs: list[str] | None = None) -> dict[str, Any]:
    """Run the registered chain ``chain`` (e.g. ``passages``, ``kg``) shaped by ``raw_params``,
    up to ``to_outputs`` when given."""
    from kgp_kedro.pipelines.chains import build_pipelines

    pipeline = build_pipelines(raw_params)[chain]
    if to_outputs:
        pipeline = pipeline.filter(to_outputs=to_outputs)
    return run_in_memory(pipeline, raw_params)


class SourceKg(NamedTuple):
    """One source's questions and passages, its retrieval graph and its passage vectors."""

    source: Mapping[str, Any]
    questions: pd.DataFrame
    passages: pd.DataFrame
    graphs: GraphTables
    embeddings: EmbeddingLookup


def kg_per_source(raw_params: Mapping[str, Any], params: Any, limit: int | None
                  ) -> Iterator[SourceKg]:
    """For each of ``ingest.sources`` in turn, the ``kg`` chain on its first ``limit``
    questions, up to ``retrieve.graph.variant``'s graph and ``retrieve.embeddings``' vectors
    (``params``: ``raw_params`` validated): the benchmarks' loop over sources."""
    graph, encoder = params.retrieve.graph.variant, params.retrieve.embeddings
    for source in raw_params["ingest"]["sources"]:
        one = copy.deepcopy(dict(raw_params))
        one["ingest"]["sources"] = [{**source, "limit": limit}]
        data = run_chain("kg", one, to_outputs=[f"kg_edges_{graph}",
                                                f"passage_embeddings_{encoder}"])
        yield SourceKg(source, data["questions"], data["passages"],
                       GraphTables(data[f"kg_nodes_{graph}"], data[f"kg_edges_{graph}"]),
                       EmbeddingLookup(data[f"passage_embeddings_{encoder}"],
                                       params.encoder(encoder).model))
