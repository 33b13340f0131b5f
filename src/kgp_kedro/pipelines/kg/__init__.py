"""kg: passages -> one versioned edge table per KG variant (a Kedro namespace each)."""
from kgp_kedro.pipelines.kg.pipeline import create_pipeline

__all__ = ["create_pipeline"]
