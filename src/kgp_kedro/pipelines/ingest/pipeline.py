"""ingest: native dataset files -> questions, each question's documents, the QA questions."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.ingest.nodes import (add_negative_documents, read_sources,
                                              select_qa_questions)


def create_pipeline(params=None) -> Pipeline:
    return Pipeline([
        node(read_sources, "params:ingest", ["questions", "own_documents", "skipped_files"],
             name="read_sources"),
        node(add_negative_documents, ["questions", "own_documents", "params:ingest"],
             "documents", name="add_negative_documents"),
        node(select_qa_questions, ["questions", "params:ingest"], "qa_questions",
             name="select_qa_questions"),
    ], tags=["ingest"])
