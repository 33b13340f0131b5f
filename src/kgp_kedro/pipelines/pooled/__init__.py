"""pooled: retrieval where all questions of a source share one collection (the setting HippoRAG
reports recall in), with faiss indexes where exact search would be quadratic."""
from kgp_kedro.pipelines.pooled.pipeline import create_pipeline

__all__ = ["create_pipeline"]
