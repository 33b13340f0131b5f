"""retrieval_quality pipeline: compares the retrieval methods; carries retrieve upstream."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines import retrieve
from kgp_kedro.pipelines.config import load_retrieval_methods
from kgp_kedro.pipelines.retrieval_quality.nodes import plot_retrieval_recall, score_retrieval


def create_pipeline(**kwargs) -> Pipeline:
    methods = list(load_retrieval_methods())
    return retrieve.create_pipeline() + Pipeline([
        node(score_retrieval, ["questions", "passages", "params:retrieval_quality.ks",
                               *[f"retrieved_{m}" for m in methods]],
             ["retrieval_per_question", "retrieval_summary"], name="score_retrieval"),
        node(plot_retrieval_recall, "retrieval_summary", "retrieval_figure",
             name="plot_retrieval_recall"),
    ])
