"""Project pipelines."""
from __future__ import annotations

from kedro.framework.project import find_pipelines
from kedro.pipeline import Pipeline


def register_pipelines() -> dict[str, Pipeline]:
    """Register the project's pipelines (one folder each under ``pipelines/``).

    Each pipeline carries its upstream. The default run goes end to end: the KG quality
    study and ingest -> passages -> KGs -> retrieve -> read -> score -> report.
    """
    pipelines = find_pipelines(raise_errors=True)
    pipelines["__default__"] = pipelines["kg_quality"] + pipelines["report"]
    return pipelines
