"""Knowledge graphs (paper §3): the one graph model, and the builders (TF-IDF keywords, KNN
embeddings, linked entities) behind a registry."""
from kgp_kedro.graphs.builders import BUILDERS, GraphBuilder
from kgp_kedro.graphs.model import EDGE_COLUMNS, NODE_COLUMNS, Edges, Graph, Nodes

__all__ = ["BUILDERS", "EDGE_COLUMNS", "NODE_COLUMNS", "Edges", "Graph", "GraphBuilder", "Nodes"]
