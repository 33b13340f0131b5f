"""Retrieval methods (paper §8.2), one module each, registered by the ``method`` name of a
``retrieve.methods`` block."""
from kgp_kedro.retrievers.base import (RETRIEVERS, Requirements, Resources, Retriever,
                                       SkippedMethod, Visit)

__all__ = ["RETRIEVERS", "Requirements", "Resources", "Retriever", "SkippedMethod", "Visit"]
