"""Metrics of the papers: KG quality, retrieval, answers."""
from kgp_kedro.evaluation.kg_quality import (NeighbourhoodScores, graph_stats, kg_quality_rows,
                                             neighbourhood_scores, seed_passages)
from kgp_kedro.evaluation.retrieval import retrieval_metrics, score_retrieval

__all__ = ["NeighbourhoodScores", "graph_stats", "kg_quality_rows", "neighbourhood_scores",
           "retrieval_metrics", "score_retrieval", "seed_passages"]
