"""Nodes of the kg_quality pipeline (paper §3 Figure 5, §8.6 Figure 9, §8.1 Table 3)."""
from __future__ import annotations

import logging
from dataclasses import asdict

import pandas as pd
import plotly.graph_objects as go
from tqdm.auto import tqdm

from kgp_kedro.evaluation import graph_stats, neighbourhood_scores
from kgp_kedro.graphs import Adjacency
from kgp_kedro.reporting import plot_kg_quality
from kgp_kedro.retrieval import tfidf_search

logger = logging.getLogger(__name__)

SUMMARY_COLUMNS = ["source", "variant", "setting", "avg_neighbors", "sf_em", "precision",
                   "recall", "density", "avg_candidates", "n_questions"]


def seed_passages(questions: pd.DataFrame, passages: pd.DataFrame, top_k: int) -> pd.DataFrame:
    """The ``top_k`` TF-IDF seed passages of each question over its collection (paper §3)."""
    groups = {cid: g for cid, g in passages.groupby("collection_id", sort=False)}
    rows = []
    for q in tqdm(questions.itertuples(index=False), total=len(questions), desc="seeds",
                  leave=False, disable=None):
        group = groups.get(q.collection_id)
        if group is None:
            continue
        order, scores = tfidf_search(q.question, group["text"].tolist(), top_k)
        ids = group["passage_id"].to_numpy()[order]
        rows.extend({"question_id": q.question_id, "collection_id": q.collection_id,
                     "rank": rank, "passage_id": pid, "score": float(score)}
                    for rank, (pid, score) in enumerate(zip(ids, scores)))
    return pd.DataFrame(rows, columns=["question_id", "collection_id", "rank", "passage_id",
                                       "score"])


def score_neighbourhoods(questions: pd.DataFrame, passages: pd.DataFrame, seeds: pd.DataFrame,
                         edges: pd.DataFrame, variant: str) -> pd.DataFrame:
    """Per question and density setting: SF-EM, precision, recall of ``C1`` and the graph's
    size and density (see :func:`kgp_kedro.evaluation.neighbourhood_scores`)."""
    nodes = {cid: g["passage_id"].tolist() for cid, g in passages.groupby("collection_id")}
    support = {cid: g.loc[g["is_supporting"], "passage_id"].tolist()
               for cid, g in passages.groupby("collection_id")}
    seed_ids = {(q, c): g["passage_id"].tolist()
                for (q, c), g in seeds.groupby(["question_id", "collection_id"])}
    edge_groups = {key: g for key, g in edges.groupby(["setting", "collection_id"], sort=False)}
    settings = list(dict.fromkeys(edges["setting"]))
    empty = edges.iloc[0:0]
    rows, unlabelled = [], 0
    for setting in tqdm(settings, desc=f"kg_quality {variant}", leave=False, disable=None):
        adjacency: dict[str, tuple[Adjacency, dict[str, float]]] = {}
        for q in questions.itertuples(index=False):
            if not support.get(q.collection_id):
                unlabelled += 1
                continue
            if q.collection_id not in adjacency:
                adj = Adjacency.from_edges(nodes[q.collection_id],
                                           edge_groups.get((setting, q.collection_id), empty))
                adjacency[q.collection_id] = (adj, graph_stats(adj))
            adj, stats = adjacency[q.collection_id]
            scores = neighbourhood_scores(adj, seed_ids.get((q.question_id, q.collection_id), []),
                                          support[q.collection_id])
            rows.append({"source": q.source, "variant": variant, "setting": setting,
                         "question_id": q.question_id, "collection_id": q.collection_id,
                         **asdict(scores), **stats})
    if unlabelled:
        logger.warning("kg_quality %s: %d question-settings have no supporting passages and are "
                       "left out", variant, unlabelled)
    return pd.DataFrame(rows)


def summarise_kg_quality(*per_variant: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Concatenate the variants' per-question rows and average them per source × variant ×
    setting: the table behind Figure 5."""
    per_question = pd.concat([f for f in per_variant if not f.empty], ignore_index=True)
    summary = (per_question.groupby(["source", "variant", "setting"], sort=False)
               .agg(avg_neighbors=("avg_neighbors", "mean"), sf_em=("sf_em", "mean"),
                    precision=("precision", "mean"), recall=("recall", "mean"),
                    density=("density", "mean"), avg_candidates=("n_candidates", "mean"),
                    n_questions=("question_id", "nunique"))
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
