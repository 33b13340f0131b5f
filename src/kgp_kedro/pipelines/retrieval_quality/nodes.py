"""Nodes of the retrieval_quality stage: scores, figures, and the paper's two sweeps."""
from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from kgp_kedro.config import validate
from kgp_kedro.pipelines.parameter_tree import parse_method, parse_variant
from kgp_kedro.config.sections import PassagesParams, RetrievalQualityParams
from kgp_kedro.evaluation.hops import hop_histogram
from kgp_kedro.evaluation.retrieval import score_retrieval
from kgp_kedro.graphs.build import GraphTables
from kgp_kedro.models.embeddings import EmbeddingLookup
from kgp_kedro.models.loading import load_models
from kgp_kedro.reporting.panels import plot_lines_by_source
from kgp_kedro.reporting.recall_table import plot_recall_heatmap
from kgp_kedro.sweeps import sweep_branching_factor, sweep_collection_size


def score_all_retrieval(questions: pd.DataFrame, passages: pd.DataFrame,
                        retrieval_quality: dict[str, Any],
                        *retrieved: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``retrieval_per_question`` and ``retrieval_summary`` at ``retrieval_quality.ks``."""
    ks = validate(RetrievalQualityParams, retrieval_quality, "retrieval_quality").ks
    return score_retrieval(questions, passages, ks, *retrieved)


def count_hops(*retrieved: pd.DataFrame) -> pd.DataFrame:
    """``hop_histogram``: per source × scope × method × hop, the visits (distinct path
    prefixes: a seed counts once however many paths grow from it), their mean per question
    and the questions that reach the hop."""
    return hop_histogram(*retrieved)


def _passage_unit(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows measured against supporting passages (the figures' unit)."""
    return frame[frame["unit"] == "passage"] if "unit" in frame else frame


def plot_retrieval_recall(summary: pd.DataFrame) -> go.Figure:
    """Supporting-passage recall at k = 2, 5, 30 per method, source and scope (a heatmap)."""
    return plot_recall_heatmap(_passage_unit(summary))


def _methods(raw: dict[str, Any]) -> dict[str, Any]:
    return {name: parse_method(name, spec, f"retrieve.methods.{name}")
            for name, spec in raw.items()}


def sweep_branching(questions: pd.DataFrame, passages: pd.DataFrame, methods: dict[str, Any],
                    budget: int, retrieval_quality: dict[str, Any], nodes: pd.DataFrame,
                    edges: pd.DataFrame, embeddings: pd.DataFrame, encoder: dict[str, Any],
                    setting: str) -> pd.DataFrame:
    """Figure 7(a-b) over every LLM-free KGP method of ``retrieve.methods``."""
    params = validate(RetrievalQualityParams, retrieval_quality, "retrieval_quality")
    encoder_model, _ = load_models(encoder, None)
    return sweep_branching_factor(
        questions, passages, _methods(methods), int(budget), params.branching_factors,
        encoder=encoder_model, graphs=GraphTables(nodes, edges), setting=setting,
        embeddings=EmbeddingLookup(embeddings, encoder["model"]))


def plot_branching_sweep(sweep: pd.DataFrame) -> go.Figure:
    """SP-EM at the full budget against the branching factor, per KGP method and source."""
    return plot_lines_by_source(_passage_unit(sweep), "branching_factor", "sp_em",
                                "KGP branching-factor sweep (KGP Figure 7a-b)",
                                "branching factor", "SP-EM at the budget")


def sweep_sizes(questions: pd.DataFrame, own_documents: pd.DataFrame, methods: dict[str, Any],
                budget: int, retrieval_quality: dict[str, Any], passages: dict[str, Any],
                seed: int, variant: dict[str, Any], variant_name: str, setting: str,
                embeddings: pd.DataFrame, encoder: dict[str, Any],
                features: pd.DataFrame | None = None) -> pd.DataFrame:
    """Figure 7(c) over ``retrieval_quality.collection_size.methods``."""
    params = validate(RetrievalQualityParams, retrieval_quality, "retrieval_quality")
    sizes = params.collection_size
    chosen = {m: spec for m, spec in _methods(methods).items() if m in sizes.methods}
    encoder_model, _ = load_models(encoder, None)
    return sweep_collection_size(
        questions, own_documents, chosen, int(budget), sizes.negatives, sizes.questions_per_source,
        int(seed), validate(PassagesParams, passages, "passages"),
        parse_variant(variant_name, variant, f"kg.variants.{variant_name}"), setting,
        features=features, embeddings=EmbeddingLookup(embeddings, encoder["model"]),
        encoder=encoder_model)


def plot_collection_size(sweep: pd.DataFrame) -> go.Figure:
    """Supporting-passage recall at the budget against documents per collection (Figure 7c)."""
    return plot_lines_by_source(_passage_unit(sweep), "documents", "recall",
                                "Retrieval vs collection size (KGP Figure 7c)",
                                "documents per collection",
                                "supporting-passage recall at the budget")
