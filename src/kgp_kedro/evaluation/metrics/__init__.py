"""Answer and citation metrics, one module a family, registered by name: each declares its
score-table columns, how a question's value is computed and how its mean is shown."""
from kgp_kedro.evaluation.metrics.base import METRICS, Column, Metric, Record

__all__ = ["METRICS", "Column", "Metric", "Record"]
