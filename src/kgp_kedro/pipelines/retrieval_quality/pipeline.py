"""retrieval_quality: compares the retrieval methods in the per-question and the pooled scope
(scores, and the hop histogram of their paths),
and runs the branching-factor and collection-size sweeps."""

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.binding import bound
from kgp_kedro.pipelines.retrieval_quality.nodes import (count_hops, plot_branching_sweep,
                                                         plot_collection_size,
                                                         plot_retrieval_recall,
                                                         score_all_retrieval, sweep_branching,
                                                         sweep_sizes)


def create_pipeline(params) -> Pipeline:
    graph, encoder = params.retrieve.graph.variant, params.retrieve.embeddings
    variant = params.variants[graph]
    features = ({"features": f"passage_{variant.builder.features}_{graph}"}
                if variant.builder.features else {})
    common = {"methods": "params:retrieve.methods", "budget": "params:retrieve.budget",
              "retrieval_quality": "params:retrieval_quality",
              "embeddings": f"passage_embeddings_{encoder}",
              "encoder": f"params:embed.encoders.{encoder}"}
    retrieved = ([f"retrieved_{m}" for m in params.methods]
                 + [f"retrieved_pooled_{m}" for m in params.pooled.methods])
    return Pipeline([
        node(score_all_retrieval, ["questions", "passages", "params:retrieval_quality",
                                   *retrieved],
             ["retrieval_per_question", "retrieval_summary"], name="score_retrieval"),
        node(plot_retrieval_recall, "retrieval_summary", "retrieval_figure",
             name="plot_retrieval_recall"),
        node(count_hops, retrieved, "hop_histogram", name="count_hops"),
        node(bound(sweep_branching, setting=params.graph_setting),
             {"questions": "questions", "passages": "passages", **common,
              "nodes": f"kg_nodes_{graph}", "edges": f"kg_edges_{graph}"},
             "branching_sweep", name="sweep_branching_factor"),
        node(plot_branching_sweep, "branching_sweep", "branching_sweep_figure",
             name="plot_branching_sweep"),
        node(bound(sweep_sizes, variant_name=graph, setting=params.graph_setting),
             {"questions": "questions", "own_documents": "own_documents", **common,
              "passages": "params:passages", "seed": "params:ingest.seed",
              "variant": f"params:kg.variants.{graph}", **features},
             "collection_size_sweep", name="sweep_collection_size"),
        node(plot_collection_size, "collection_size_sweep", "collection_size_figure",
             name="plot_collection_size"),
    ], tags=["retrieval_quality"])
