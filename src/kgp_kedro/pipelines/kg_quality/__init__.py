"""kg_quality: how well each KG's seed neighbourhoods cover the supporting passages."""
from kgp_kedro.pipelines.kg_quality.pipeline import create_pipeline

__all__ = ["create_pipeline"]
