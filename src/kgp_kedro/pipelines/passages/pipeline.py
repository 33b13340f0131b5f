"""passages: documents -> passages (the KG nodes, the retrieval unit)."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.passages.nodes import split_into_passages


def create_pipeline(params=None) -> Pipeline:
    return Pipeline([node(split_into_passages, ["documents", "params:passages"], "passages",
                          name="split_passages")], tags=["passages"])
