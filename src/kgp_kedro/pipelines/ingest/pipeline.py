"""ingest: the raw sources (``raw_<source>``, one catalog dataset per ``ingest.sources`` entry,
layer ``raw``) -> questions, each question's documents, the QA questions."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.io.raw_source import raw_source_names
from kgp_kedro.pipelines.ingest.nodes import (add_negative_documents, combine_sources,
                                              select_qa_questions)


def create_pipeline(params) -> Pipeline:
    return Pipeline([
        node(combine_sources, raw_source_names(params.ingest.sources),
             ["questions", "own_documents", "skipped_files"], name="combine_sources"),
        node(add_negative_documents, ["questions", "own_documents", "params:ingest"],
             "documents", name="add_negative_documents"),
        node(select_qa_questions, ["questions", "params:ingest"], "qa_questions",
             name="select_qa_questions"),
    ], tags=["ingest"])
