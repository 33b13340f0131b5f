"""read: one node per retrieval method, ``retrieved_<m>`` -> ``answers_<m>``."""
from functools import partial, update_wrapper

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.read.nodes import answer_questions


def create_pipeline(params) -> Pipeline:
    return Pipeline([
        node(update_wrapper(partial(answer_questions, name=m, ran_as=method.description,
                                    llm_retrieval=method.requirements.llm), answer_questions),
             ["qa_questions", f"retrieved_{m}", "passages", "params:llm", "params:read",
              "params:train"],
             f"answers_{m}", name=m)
        for m, method in params.methods.items()], tags=["read"])
