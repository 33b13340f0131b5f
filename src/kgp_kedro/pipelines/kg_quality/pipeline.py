"""kg_quality pipeline: the user's main job.

``kedro run --pipeline=kg_quality`` imports only this folder, so this pipeline carries its
upstream (ingest, passages, kg) and runs from the raw files to the figure.
"""
from functools import partial, update_wrapper

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.config import load_kg_variants
from kgp_kedro.pipelines.kg.pipeline import graphs_from_raw
from kgp_kedro.pipelines.kg_quality.nodes import (plot_kg_quality_figure, score_neighbourhoods,
                                                  seed_passages, summarise_kg_quality,
                                                  tabulate_kg_stats)


def quality_pipeline() -> Pipeline:
    variants = list(load_kg_variants())
    scoring = [
        Pipeline([node(update_wrapper(partial(score_neighbourhoods, variant=name),
                                      score_neighbourhoods),
                       ["questions", "passages", "kg_seeds", "kg_edges"],
                       "kg_quality_rows", name="score_neighbourhoods")],
                 namespace=name,
                 inputs={"questions": "questions", "passages": "passages",
                         "kg_seeds": "kg_seeds", "kg_edges": f"kg_edges_{name}"})
        for name in variants
    ]
    return Pipeline([
        node(seed_passages, ["questions", "passages", "params:kg_quality.seeds"], "kg_seeds",
             name="seed_passages"),
        *scoring,
        node(summarise_kg_quality, [f"{name}.kg_quality_rows" for name in variants],
             ["kg_quality_per_question", "kg_quality_summary"], name="summarise_kg_quality"),
        node(tabulate_kg_stats, ["questions", "documents", "passages", "kg_quality_per_question"],
             "kg_stats", name="tabulate_kg_stats"),
        node(plot_kg_quality_figure, "kg_quality_summary",
             ["kg_quality_figure_html", "kg_quality_figure_json"], name="plot_kg_quality_figure"),
    ])


def create_pipeline(**kwargs) -> Pipeline:
    return graphs_from_raw() + quality_pipeline()
