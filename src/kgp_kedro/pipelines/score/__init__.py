"""score: EM, F1 and Acc of every method's answers, on one denominator, with breakdowns."""
from kgp_kedro.pipelines.score.pipeline import create_pipeline

__all__ = ["create_pipeline"]
