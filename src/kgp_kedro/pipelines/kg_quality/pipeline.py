"""kg_quality: how well each KG variant's seed neighbourhoods cover the supporting passages."""

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.binding import bound
from kgp_kedro.pipelines.kg_quality.nodes import (find_seeds, plot_kg_quality_figure,
                                                  score_neighbourhoods, summarise_kg_quality,
                                                  tabulate_kg_stats)


def create_pipeline(params) -> Pipeline:
    variants = list(params.variants)
    scoring = [
        Pipeline([node(bound(score_neighbourhoods, variant=name),
                       ["questions", "passages", "kg_seeds", "kg_nodes", "kg_edges"],
                       "kg_quality_rows", name="score_neighbourhoods")],
                 namespace=name,
                 inputs={"questions": "questions", "passages": "passages",
                         "kg_seeds": "kg_seeds", "kg_nodes": f"kg_nodes_{name}",
                         "kg_edges": f"kg_edges_{name}"},
                 outputs={"kg_quality_rows": f"kg_quality_rows_{name}"})
        for name in variants
    ]
    return Pipeline([
        node(find_seeds, ["questions", "passages", "params:kg_quality"], "kg_seeds",
             name="seed_passages"),
        *scoring,
        node(summarise_kg_quality, [f"kg_quality_rows_{name}" for name in variants],
             ["kg_quality_per_question", "kg_quality_summary"], name="summarise_kg_quality"),
        node(tabulate_kg_stats, ["questions", "documents", "passages", "kg_quality_per_question"],
             "kg_stats", name="tabulate_kg_stats"),
        node(plot_kg_quality_figure, "kg_quality_summary",
             ["kg_quality_figure_html", "kg_quality_figure_json"], name="plot_kg_quality_figure"),
    ], tags=["kg_quality"])
