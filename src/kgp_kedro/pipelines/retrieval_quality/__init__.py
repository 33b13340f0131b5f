"""retrieval_quality: supporting-passage recall / precision / SP-EM @k of every method."""
from kgp_kedro.pipelines.retrieval_quality.pipeline import create_pipeline

__all__ = ["create_pipeline"]
