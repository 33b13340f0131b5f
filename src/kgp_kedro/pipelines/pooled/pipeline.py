"""pooled pipeline: every method of ``pooled.methods`` over one collection per source, writing
``retrieved_pooled_<method>``. KGP traverses a KNN KG built with faiss. It carries its upstream."""
from functools import partial, update_wrapper

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.config import load_parameters
from kgp_kedro.pipelines.kg.pipeline import graphs_from_raw
from kgp_kedro.pipelines.pooled.nodes import build_pooled_knn_graph, pool_questions
from kgp_kedro.pipelines.retrieve.nodes import retrieve_passages
from kgp_kedro.pipelines.retrieve.pipeline import DENSE


def pooled_retrieval_pipeline() -> Pipeline:
    params = load_parameters()
    pooled, methods = params.get("pooled", {}), params.get("retrieve", {}).get("methods", {})
    variant = params.get("retrieve", {}).get("embeddings", "knn_st")
    nodes = [
        node(pool_questions, ["questions", "passages"], ["pooled_questions", "pooled_passages"],
             name="pool_questions"),
        node(build_pooled_knn_graph, ["pooled_passages", f"{variant}.passage_embeddings",
                                      "params:pooled"], "kg_edges_pooled",
             name="build_pooled_knn_graph"),
    ]
    for name in pooled.get("methods", []):
        spec = methods[name]
        inputs = {"questions": "pooled_questions", "passages": "pooled_passages",
                  "method": f"params:retrieve.methods.{name}", "shared": "params:pooled"}
        if spec.get("method") == "kgp":
            inputs["edges"] = "kg_edges_pooled"
        if spec.get("method") in DENSE or spec.get("agent", {}).get("kind") == "encoder":
            inputs["embeddings"] = f"{variant}.passage_embeddings"
            inputs["encoder"] = f"params:kg.variants.{variant}.encoder"
        func = update_wrapper(partial(retrieve_passages, name=name, setting="pooled"),
                              retrieve_passages)
        nodes.append(node(func, inputs, f"retrieved_pooled_{name}", name=f"retrieve_pooled_{name}"))
    return Pipeline(nodes, tags=["pooled"])


def create_pipeline(**kwargs) -> Pipeline:
    return graphs_from_raw() + pooled_retrieval_pipeline()
