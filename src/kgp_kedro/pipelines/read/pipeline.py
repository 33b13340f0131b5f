"""read: one node per retrieval method, ``retrieved_<m>`` -> ``answers_<m>``."""

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.binding import bound
from kgp_kedro.pipelines.read.nodes import answer_questions


def create_pipeline(params) -> Pipeline:
    return Pipeline([
        node(bound(answer_questions, name=m, ran_as=method.description,
                   llm_retrieval=method.requirements.llm),
             ["qa_questions", f"retrieved_{m}", "passages", "params:llm", "params:read",
              "params:train"],
             f"answers_{m}", name=m)
        for m, method in params.methods.items()], tags=["read"])
