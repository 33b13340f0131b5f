"""retrieve: one namespace per method of ``retrieve.methods``, writing ``retrieved_<method>``,
with the inputs the method's retriever requires (the KG of ``retrieve.graph``, passage
embeddings, the LLM). Methods that call the LLM run on ``qa_questions``, the reader's set."""
from kedro.pipeline import Pipeline

from kgp_kedro.pipelines.retrieval import method_pipeline


def create_pipeline(params) -> Pipeline:
    return Pipeline([method_pipeline(m, params, f"retrieved_{m.name}",
                                     graph=params.retrieve.graph.variant,
                                     setting=params.graph_setting)
                     for m in params.methods.values()], tags=["retrieve"])
