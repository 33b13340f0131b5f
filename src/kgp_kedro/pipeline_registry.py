"""Project pipelines."""
from __future__ import annotations

from kedro.framework.project import find_pipelines
from kedro.pipeline import Pipeline

DEFAULT = ("kg_quality", "report")


def register_pipelines() -> dict[str, Pipeline]:
    """Register the project's pipelines (one folder each under ``pipelines/``).

    Each pipeline carries its upstream. The default run goes end to end: the KG quality
    study and ingest -> passages -> KGs -> retrieve -> read -> score -> report. Kedro imports
    only the requested pipelines (all of them when the default is requested).
    """
    pipelines = find_pipelines(raise_errors=True)
    if all(name in pipelines for name in DEFAULT):
        pipelines["__default__"] = sum((pipelines[name] for name in DEFAULT), Pipeline([]))
    return pipelines
