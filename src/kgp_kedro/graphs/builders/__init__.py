"""KG builders, one module each, registered by the ``builder`` name used in ``kg.variants``."""
from kgp_kedro.graphs.builders.base import BUILDERS, GraphBuilder

__all__ = ["BUILDERS", "GraphBuilder"]
