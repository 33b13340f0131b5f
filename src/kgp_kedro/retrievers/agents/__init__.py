"""Traversal agents (f, g, φ of Eq. 1, paper §4), one module each, registered by the
``agent.kind`` name of a KGP method."""
from kgp_kedro.retrievers.agents.base import AGENTS, TraversalAgent

__all__ = ["AGENTS", "TraversalAgent"]
