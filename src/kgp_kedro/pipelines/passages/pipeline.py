"""passages pipeline: one node over :func:`kgp_kedro.corpus.split_passages`."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.corpus import split_passages


def create_pipeline(**kwargs) -> Pipeline:
    return Pipeline([
        node(split_passages,
             inputs=["documents", "params:passages.sentence_level", "params:passages.max_chars"],
             outputs="passages", name="split_passages"),
    ])
