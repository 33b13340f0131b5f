"""Retrieval over a collection's passages."""
from kgp_kedro.retrieval.tfidf import tfidf_search

__all__ = ["tfidf_search"]
