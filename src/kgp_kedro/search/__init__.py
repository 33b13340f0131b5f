"""Lexical and dense indexes over a collection's passages, shared by the KG builders and the
retrievers (graphs never import retrievers)."""
from kgp_kedro.search.ranking import top_k
from kgp_kedro.search.tfidf import TfidfIndex, text_similarity, tfidf_search

__all__ = ["TfidfIndex", "text_similarity", "tfidf_search", "top_k"]
