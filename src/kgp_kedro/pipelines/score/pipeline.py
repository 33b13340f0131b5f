"""score: ``answers_<m>`` -> ``qa_scores_<m>`` per method, then ``qa_scores``, ``qa_summary``
and ``qa_by_type``."""

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.binding import bound
from kgp_kedro.pipelines.score.nodes import score_method, summarise_qa


def create_pipeline(params) -> Pipeline:
    methods = [*params.methods, *params.ewek.methods, *params.holmes.methods]  # read, EWEK, HOLMES
    nodes = [node(bound(score_method, name=m),
                  ["qa_questions", f"answers_{m}", "passages", "params:score", "params:llm"],
                  f"qa_scores_{m}", name=m) for m in methods]
    nodes.append(node(summarise_qa, [f"qa_scores_{m}" for m in methods],
                      ["qa_scores", "qa_summary", "qa_by_type"], name="summarise_qa"))
    return Pipeline(nodes, tags=["score"])
