"""retrieve: one namespace per method of ``retrieve.methods``, writing ``retrieved_<method>``,
with the inputs the method's retriever requires (the KG of ``retrieve.graph``, passage
embeddings, the LLM). Methods that call the LLM run on ``qa_questions``, the reader's set.
With ``retrieve.replay`` each method's passages for the QA questions are read from that
recording instead (:mod:`kgp_kedro.retrievers.recorded`)."""

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.binding import bound
from kgp_kedro.pipelines.retrieval import method_pipeline
from kgp_kedro.pipelines.retrieve.nodes import replay_retrieved


def create_pipeline(params) -> Pipeline:
    if params.retrieve.replay:
        return Pipeline([Pipeline([node(bound(replay_retrieved, name=m),
                                        ["qa_questions", "params:retrieve.replay"],
                                        f"retrieved_{m}", name="retrieve")],
                                  namespace=m, inputs={"qa_questions"},
                                  outputs={f"retrieved_{m}"},
                                  parameters={"params:retrieve.replay"})
                         for m in params.methods], tags=["retrieve"])
    return Pipeline([method_pipeline(m, params, f"retrieved_{m.name}",
                                     graph=params.retrieve.graph.variant,
                                     setting=params.graph_setting)
                     for m in params.methods.values()], tags=["retrieve"])
