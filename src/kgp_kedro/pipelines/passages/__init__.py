"""passages: documents -> passages (the KG nodes)."""
from kgp_kedro.pipelines.passages.pipeline import create_pipeline

__all__ = ["create_pipeline"]
