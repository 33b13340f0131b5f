"""read: the reader LLM answers every QA question with each retrieval method's contexts."""
from kgp_kedro.pipelines.read.pipeline import create_pipeline

__all__ = ["create_pipeline"]
