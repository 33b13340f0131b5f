"""Metrics of the papers."""
from kgp_kedro.evaluation.kg_quality import NeighbourhoodScores, graph_stats, neighbourhood_scores

__all__ = ["NeighbourhoodScores", "graph_stats", "neighbourhood_scores"]
