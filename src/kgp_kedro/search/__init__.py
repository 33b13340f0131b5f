"""Lexical and dense indexes over a collection's passages, shared by the KG builders, the
retrievers and the agents (graphs never import retrievers)."""
from kgp_kedro.search.ranking import top_k
from kgp_kedro.search.tfidf import (TextCounts, TfidfIndex, similarities, text_similarity,
                                   tfidf_search)

__all__ = ["TextCounts", "TfidfIndex", "similarities", "text_similarity", "tfidf_search",
           "top_k"]
