"""ask: ``qa_questions`` and ``retrieved_<ask.method>`` (and ``retrieved_<ask.sanity>``) ->
``ask_answers`` -> the answers report (``ask_report_md``, ``ask_report_html``). Empty when
``ask.method`` is not a configured method (an env that does not ask)."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.ask.nodes import ask, write_report


def create_pipeline(params) -> Pipeline:
    method, sanity = params.ask.method, params.ask.sanity
    if method not in params.methods:
        return Pipeline([])
    inputs = ["qa_questions", f"retrieved_{method}", "passages", "params:ask", "params:llm",
              "params:read"]
    if sanity in params.methods:
        inputs.append(f"retrieved_{sanity}")
    return Pipeline([
        node(ask, inputs, "ask_answers", name="answer_with_citations"),
        node(write_report, "ask_answers", ["ask_report_md", "ask_report_html"],
             name="write_report"),
    ], tags=["ask"])
