"""ingest pipeline."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.ingest.nodes import add_negative_documents, read_sources


def create_pipeline(**kwargs) -> Pipeline:
    return Pipeline([
        node(read_sources, inputs="params:ingest.sources",
             outputs=["questions", "own_documents"], name="read_sources"),
        node(add_negative_documents,
             inputs=["questions", "own_documents", "params:ingest.negatives_per_question",
                     "params:ingest.seed"],
             outputs="documents", name="add_negative_documents"),
    ])
