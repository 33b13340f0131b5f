"""retrieve: one namespace per method of ``retrieve.methods``, writing ``retrieved_<method>``,
with the inputs the method's retriever requires (the KG of ``retrieve.graph``, passage
embeddings, the LLM). Methods that call the LLM run on ``qa_questions``, the reader's set."""
from functools import partial, update_wrapper

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.retrieve.nodes import retrieve_passages


def method_pipeline(method, params, output: str, questions: str = "questions",
                    passages: str = "passages", graph: str | None = None,
                    setting: str | None = None, extra: dict | None = None,
                    scope: str = "per_question", namespace: str | None = None,
                    llm_questions: str = "qa_questions") -> Pipeline:
    """The retrieval node of one method under its own namespace: questions, passages, its YAML
    block and the budget, plus whatever its requirements add (``graph`` names the KG whose
    ``kg_nodes_<graph>`` / ``kg_edges_<graph>`` it traverses at ``setting``; ``extra`` adds
    parameter inputs, e.g. the pooled setting's faiss options). Methods that call the LLM
    read ``llm_questions`` instead of ``questions``."""
    needs = method.requirements
    inputs = {"questions": llm_questions if needs.llm else questions, "passages": passages,
              "method": f"params:retrieve.methods.{method.name}",
              "budget": "params:retrieve.budget", **(extra or {})}
    if needs.graph:
        inputs["nodes"], inputs["edges"] = f"kg_nodes_{graph}", f"kg_edges_{graph}"
    if needs.embeddings:
        encoder = params.retrieve.embeddings
        inputs["embeddings"] = f"passage_embeddings_{encoder}"
        inputs["encoder"] = f"params:embed.encoders.{encoder}"
    if needs.llm:
        inputs["llm"] = "params:llm"
    for trained in needs.trained:   # the train stage's model folder, for model: trained:<name>
        inputs[f"trained_{trained}"] = f"trained_encoder_{trained}"
    func = update_wrapper(partial(retrieve_passages, name=method.name, setting=setting,
                                  scope=scope), retrieve_passages)
    datasets = {v for v in inputs.values() if not v.startswith("params:")}
    return Pipeline([node(func, inputs, output, name="retrieve")],
                    namespace=namespace or method.name,
                    inputs=datasets, outputs={output},
                    parameters={v for v in inputs.values() if v.startswith("params:")})


def create_pipeline(params) -> Pipeline:
    return Pipeline([method_pipeline(m, params, f"retrieved_{m.name}",
                                     graph=params.retrieve.graph.variant,
                                     setting=params.graph_setting)
                     for m in params.methods.values()], tags=["retrieve"])
