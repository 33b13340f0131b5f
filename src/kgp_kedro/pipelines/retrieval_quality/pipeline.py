"""retrieval_quality pipeline: compares the retrieval methods; carries retrieve upstream."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines import retrieve
from kgp_kedro.pipelines.config import load_parameters, load_retrieval_methods
from kgp_kedro.pipelines.retrieval_quality.nodes import (plot_branching_sweep,
                                                         plot_retrieval_recall, score_retrieval,
                                                         sweep_branching_factor)


def create_pipeline(**kwargs) -> Pipeline:
    methods = list(load_retrieval_methods())
    shared = load_parameters().get("retrieve", {})
    variant = shared["embeddings"]
    return retrieve.create_pipeline() + Pipeline([
        node(score_retrieval, ["questions", "passages", "params:retrieval_quality.ks",
                               *[f"retrieved_{m}" for m in methods]],
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
    ])
