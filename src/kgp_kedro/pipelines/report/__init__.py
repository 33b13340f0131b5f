"""report: the paper-style QA comparison (Table 1, Table 2), the reader's costs, figures."""
from kgp_kedro.pipelines.report.pipeline import create_pipeline

__all__ = ["create_pipeline"]
