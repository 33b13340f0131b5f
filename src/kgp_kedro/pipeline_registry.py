"""Project pipelines."""
from __future__ import annotations

from kedro.framework.project import find_pipelines
from kedro.pipeline import Pipeline


def register_pipelines() -> dict[str, Pipeline]:
    """Register the project's pipelines (one folder each under ``pipelines/``).

    ``kg_quality`` carries its upstream, so it is also the default run for now.
    """
    pipelines = find_pipelines(raise_errors=True)
    if "kg_quality" in pipelines:
        pipelines["__default__"] = pipelines["kg_quality"]
    else:
        pipelines["__default__"] = sum(pipelines.values(), Pipeline([]))
    return pipelines
