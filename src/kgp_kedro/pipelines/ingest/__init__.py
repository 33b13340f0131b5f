"""ingest: native dataset files -> questions and documents."""
from kgp_kedro.pipelines.ingest.pipeline import create_pipeline

__all__ = ["create_pipeline"]
