"""Figures and tables in the layout of the papers."""
from kgp_kedro.reporting.kg_quality_figure import plot_kg_quality

__all__ = ["plot_kg_quality"]
