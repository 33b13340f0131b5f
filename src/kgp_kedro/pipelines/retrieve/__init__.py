"""retrieve: for every question and configured method, the context passages it would give a
reader, with the traversal path, latency and model calls."""
from kgp_kedro.pipelines.retrieve.pipeline import create_pipeline

__all__ = ["create_pipeline"]
