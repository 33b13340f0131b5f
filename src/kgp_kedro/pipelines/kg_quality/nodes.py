"""Nodes of the kg_quality stage (paper §3 Figure 5, §8.6 Figure 9, §8.1 Table 3)."""
from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from kgp_kedro.config import validate
from kgp_kedro.config.sections import KgQualityParams
from kgp_kedro.evaluation import kg_quality_rows, seed_passages
from kgp_kedro.graphs.build import GraphTables
from kgp_kedro.reporting import plot_kg_quality

SUMMARY_COLUMNS = ["source", "variant", "setting", "avg_neighbors", "sf_em", "precision",
                   "recall", "density", "avg_candidates", "n_questions", "neighbour_ratio",
                   "avg_passages"]


def find_seeds(questions: pd.DataFrame, passages: pd.DataFrame,
               kg_quality: dict[str, Any]) -> pd.DataFrame:
    """``kg_seeds``: the TF-IDF seed passages of each question (``kg_quality.seeds``)."""
    return seed_passages(questions, passages,
                         validate(KgQualityParams, kg_quality, "kg_quality").seeds)


def score_neighbourhoods(questions: pd.DataFrame, passages: pd.DataFrame, seeds: pd.DataFrame,
                         nodes: pd.DataFrame, edges: pd.DataFrame, variant: str) -> pd.DataFrame:
    """Per question and density setting of one variant: SF-EM, precision, recall of ``C1``."""
    return kg_quality_rows(questions, passages, seeds, GraphTables(nodes, edges), variant)


def summarise_kg_quality(*per_variant: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Concatenate the variants' per-question rows and average them per source × variant ×
    setting: the table behind Figure 5. ``neighbour_ratio`` is the mean ``|C1|`` / collection
    passages (the share of a collection the seeds' neighbourhood covers: comparable across
    collection sizes, unlike ``avg_neighbors``); ``avg_passages`` the mean collection size."""
    per_question = pd.concat([f for f in per_variant if not f.empty], ignore_index=True)
    summary = (per_question.groupby(["source", "variant", "setting"], sort=False)
               .agg(avg_neighbors=("avg_neighbors", "mean"), sf_em=("sf_em", "mean"),
                    precision=("precision", "mean"), recall=("recall", "mean"),
                    density=("density", "mean"), avg_candidates=("n_candidates", "mean"),
                    n_questions=("question_id", "nunique"),
                    neighbour_ratio=("neighbour_ratio", "mean"),
                    avg_passages=("collection_passages", "mean"))
               .reset_index())
    return per_question, summary[SUMMARY_COLUMNS]


def tabulate_kg_stats(questions: pd.DataFrame, documents: pd.DataFrame,
                      passages: pd.DataFrame, per_question: pd.DataFrame) -> pd.DataFrame:
    """Paper Table 3 per source, KG variant and setting: averages over collections of #docs,
    #passages, #edges, passage length (words) and density, with the number of questions."""
    collections = passages.assign(words=passages["text"].str.split().str.len()).groupby(
        "collection_id").agg(source=("source", "first"), n_passages=("passage_id", "size"),
                             passage_avg_words=("words", "mean"))
    collections["n_docs"] = documents.groupby("collection_id")["doc_id"].nunique()
    graphs = per_question.drop_duplicates(["variant", "setting", "collection_id"])
    table = graphs.merge(collections.drop(columns="source"), left_on="collection_id",
                         right_index=True)
    stats = (table.groupby(["source", "variant", "setting"], sort=False)
             .agg(n_docs=("n_docs", "mean"), n_passages=("n_passages", "mean"),
                  n_edges=("n_edges", "mean"), passage_avg_words=("passage_avg_words", "mean"),
                  density=("density", "mean"), n_collections=("collection_id", "nunique"))
             .reset_index())
    n_questions = questions.groupby("source")["question_id"].nunique().rename("n_questions")
    return stats.merge(n_questions, left_on="source", right_index=True)


def plot_kg_quality_figure(summary: pd.DataFrame) -> tuple[go.Figure, go.Figure]:
    """Figure 5 (one panel per source), saved both as HTML and as plotly JSON."""
    fig = plot_kg_quality(summary)
    return fig, fig
