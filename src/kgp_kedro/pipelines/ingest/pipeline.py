"""ingest pipeline."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.ingest.nodes import (add_negative_documents, read_sources,
                                              select_qa_questions)


def create_pipeline(**kwargs) -> Pipeline:
    return Pipeline([
        node(read_sources, inputs="params:ingest.sources",
             outputs=["questions", "own_documents"], name="read_sources"),
        node(add_negative_documents,
             inputs=["questions", "own_documents", "params:ingest.negatives_per_question",
                     "params:ingest.seed"],
             outputs="documents", name="add_negative_documents"),
        node(select_qa_questions, inputs=["questions", "params:ingest.qa_questions_per_source"],
             outputs="qa_questions", name="select_qa_questions"),
    ])
