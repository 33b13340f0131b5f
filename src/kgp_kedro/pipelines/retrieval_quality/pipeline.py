"""retrieval_quality pipeline: compares the retrieval methods in the per-question and the pooled
setting; carries the retrieve and pooled pipelines upstream."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines import pooled, retrieve
from kgp_kedro.pipelines.config import load_parameters, load_retrieval_methods
from kgp_kedro.pipelines.retrieval_quality.nodes import (plot_branching_sweep,
                                                         plot_collection_size,
                                                         plot_retrieval_recall, score_retrieval,
                                                         sweep_branching_factor,
                                                         sweep_collection_size)


def create_pipeline(**kwargs) -> Pipeline:
    methods = list(load_retrieval_methods())
    params = load_parameters()
    shared = params.get("retrieve", {})
    pooled_methods = params.get("pooled", {}).get("methods", [])
    variant, graph = shared["embeddings"], shared["graph"]["variant"]
    builder = params["kg"]["variants"][graph]["builder"]
    features = {"graph_features": f"{graph}.passage_mentions"} if builder == "entity" else {}
    return retrieve.create_pipeline() + pooled.create_pipeline() + Pipeline([
        node(score_retrieval, ["questions", "passages", "params:retrieval_quality.ks",
                               *[f"retrieved_{m}" for m in methods],
                               *[f"retrieved_pooled_{m}" for m in pooled_methods]],
             ["retrieval_per_question", "retrieval_summary"], name="score_retrieval"),
        node(plot_retrieval_recall, "retrieval_summary", "retrieval_figure",
             name="plot_retrieval_recall"),
        node(sweep_branching_factor,
             {"questions": "questions", "passages": "passages", "shared": "params:retrieve",
              "factors": "params:retrieval_quality.branching_factors",
              "edges": f"kg_edges_{shared['graph']['variant']}",
              "embeddings": f"{variant}.passage_embeddings",
              "encoder": f"params:kg.variants.{variant}.encoder"},
             "branching_sweep", name="sweep_branching_factor"),
        node(plot_branching_sweep, "branching_sweep", "branching_sweep_figure",
             name="plot_branching_sweep"),
        node(sweep_collection_size,
             {"questions": "questions", "own_documents": "own_documents",
              "embeddings": f"{variant}.passage_embeddings", **features,
              "shared": "params:retrieve",
              "sweep": "params:retrieval_quality.collection_size",
              "passages": "params:passages", "seed": "params:ingest.seed",
              "graph": f"params:kg.variants.{graph}",
              "encoder": f"params:kg.variants.{variant}.encoder"},
             "collection_size_sweep", name="sweep_collection_size"),
        node(plot_collection_size, "collection_size_sweep", "collection_size_figure",
             name="plot_collection_size"),
    ])
