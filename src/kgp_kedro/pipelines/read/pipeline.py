"""read pipeline: one node per retrieval method, ``retrieved_<m>`` -> ``answers_<m>``. It
carries its upstream (ingest, passages, kg, retrieve)."""
from functools import partial, update_wrapper

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.config import load_retrieval_methods
from kgp_kedro.pipelines.read.nodes import answer_questions
from kgp_kedro.pipelines.retrieve.pipeline import create_pipeline as retrieve_pipeline


def reading_pipeline() -> Pipeline:
    nodes = []
    for name in load_retrieval_methods():
        func = update_wrapper(partial(answer_questions, name=name), answer_questions)
        nodes.append(node(func, ["qa_questions", f"retrieved_{name}", "passages", "params:llm",
                                 "params:read"], f"answers_{name}", name=f"read_{name}"))
    return Pipeline(nodes, tags=["read"])


def create_pipeline(**kwargs) -> Pipeline:
    return retrieve_pipeline() + reading_pipeline()
