"""retrieve pipeline: one namespaced node per method of ``retrieve.methods``, writing
``retrieved_<method>``. It carries its upstream (ingest, passages, kg). Methods that call the
LLM (IRCoT, the chat agent) run on ``qa_questions``, the set the reader answers."""
from functools import partial, update_wrapper

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.config import load_parameters, load_retrieval_methods
from kgp_kedro.pipelines.kg.pipeline import graphs_from_raw
from kgp_kedro.pipelines.retrieve.nodes import retrieve_passages
from kgp_kedro.retrieval.methods import needs_llm

DENSE = {"knn", "dpr", "mdr"}


def method_pipeline(name: str, spec: dict, shared: dict) -> Pipeline:
    """The retrieval node of one method, with the inputs its kind needs."""
    inputs = {"questions": "questions", "passages": "passages",
              "method": f"params:retrieve.methods.{name}", "shared": "params:retrieve"}
    kind = spec.get("method")
    agent = spec.get("agent", {}).get("kind")
    if kind == "kgp":
        inputs["edges"] = f"kg_edges_{shared['graph']['variant']}"
    if needs_llm(spec):  # LLM-driven retrievers run on the reader's questions only
        inputs["questions"] = "qa_questions"
        inputs["llm"] = "params:llm"
    if kind in DENSE or agent == "encoder":
        variant = shared["embeddings"]
        inputs["embeddings"] = f"{variant}.passage_embeddings"
        inputs["encoder"] = f"params:kg.variants.{variant}.encoder"
    func = update_wrapper(partial(retrieve_passages, name=name), retrieve_passages)
    return Pipeline([node(func, inputs, f"retrieved_{name}", name=f"retrieve_{name}")],
                    tags=["retrieve"])


def retrieval_pipeline() -> Pipeline:
    shared = load_parameters().get("retrieve", {})
    return sum((method_pipeline(name, spec, shared)
                for name, spec in load_retrieval_methods().items()), Pipeline([]))


def create_pipeline(**kwargs) -> Pipeline:
    return graphs_from_raw() + retrieval_pipeline()
