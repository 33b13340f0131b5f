"""Nodes of the retrieval_quality pipeline."""
from __future__ import annotations

import logging

import pandas as pd
import plotly.graph_objects as go

from kgp_kedro.reporting.panels import plot_lines_by_source
from kgp_kedro.retrieval.metrics import retrieval_metrics

logger = logging.getLogger(__name__)

SUMMARY_COLUMNS = ["source", "setting", "method", "k", "recall", "precision", "sp_em",
                   "latency_ms", "calls", "n_questions"]


def score_retrieval(questions: pd.DataFrame, passages: pd.DataFrame, ks: list[int],
                    *retrieved: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per question, method and k: recall, precision and SP-EM of the top k against the
    supporting passages; averaged per source × method × k with the mean latency and model
    calls per question. A method is scored on every question it ran on (all of them, or the
    QA questions for the LLM-driven ones): one that returned nothing for a question scores 0
    there. Skipped methods (empty tables) are left out."""
    support = {cid: g.loc[g["is_supporting"], "passage_id"].tolist()
               for cid, g in passages.groupby("collection_id")}
    labelled = questions[questions["collection_id"].map(lambda c: bool(support.get(c)))]
    rows = []
    for table in retrieved:
        if table.empty:
            continue
        method, setting = table["method"].iloc[0], table["setting"].iloc[0]
        ranked = {qid: g.sort_values("rank")["passage_id"].dropna().tolist()
                  for qid, g in table.groupby("question_id")}
        timing = table.drop_duplicates("question_id").set_index("question_id")
        asked = labelled[labelled["question_id"].isin(timing.index)]
        for q in asked.itertuples(index=False):
            for m in retrieval_metrics(ranked.get(q.question_id, []), support[q.collection_id], ks):
                rows.append({"source": q.source, "setting": setting, "method": method,
                             "question_id": q.question_id, **m,
                             "latency_ms": timing["latency_ms"].get(q.question_id, float("nan")),
                             "calls": timing["calls"].get(q.question_id, 0)})
    per_question = pd.DataFrame(rows)
    summary = (per_question.groupby(["source", "setting", "method", "k"], sort=False)
               .agg(recall=("recall", "mean"), precision=("precision", "mean"),
                    sp_em=("sp_em", "mean"), latency_ms=("latency_ms", "mean"),
                    calls=("calls", "mean"), n_questions=("question_id", "nunique"))
               .reset_index())
    return per_question, summary[SUMMARY_COLUMNS]


def plot_retrieval_recall(summary: pd.DataFrame) -> go.Figure:
    """Supporting-passage recall@k per method and setting, one panel per source."""
    labelled = summary.assign(line=summary["method"].where(
        summary["setting"] == "collection", summary["method"] + " (" + summary["setting"] + ")"))
    return plot_lines_by_source(labelled, "k", "recall", "Retrieval quality per method",
                                "k (passages)", "supporting-passage recall@k", group="line",
                                log_x=True)


def sweep_branching_factor(questions: pd.DataFrame, passages: pd.DataFrame,
                           shared: dict, factors: list[int], edges: pd.DataFrame,
                           embeddings: pd.DataFrame, encoder: dict) -> pd.DataFrame:
    """Figure 7(a-b): every KGP method re-run with each branching factor; SP-EM, recall and
    precision at the full budget, latency and model calls per question."""
    from kgp_kedro.pipelines.retrieve.nodes import retrieve_passages

    budget = int(shared.get("budget", 30))
    rows = []
    for name, spec in shared["methods"].items():
        if spec.get("method") != "kgp":
            continue
        for factor in factors:
            table = retrieve_passages(questions, passages, {**spec, "branching_factor": factor},
                                      shared, f"{name}@{factor}", edges=edges,
                                      embeddings=embeddings, encoder=encoder)
            if table.empty:  # a skipped agent
                break
            _, summary = score_retrieval(questions, passages, [budget], table)
            rows.append(summary.assign(method=name, branching_factor=factor))
    if not rows:
        return pd.DataFrame(columns=[*SUMMARY_COLUMNS, "branching_factor"])
    return pd.concat(rows, ignore_index=True)


def plot_branching_sweep(sweep: pd.DataFrame) -> go.Figure:
    """SP-EM at the full budget against the branching factor, per KGP method and source."""
    return plot_lines_by_source(sweep, "branching_factor", "sp_em",
                                "KGP branching-factor sweep (KGP Figure 7a-b)",
                                "branching factor", "SP-EM at the budget")


def sweep_collection_size(questions: pd.DataFrame, own_documents: pd.DataFrame,
                          embeddings: pd.DataFrame, shared: dict, sweep: dict, passages: dict,
                          seed: int, graph: dict, encoder: dict,
                          graph_features: pd.DataFrame | None = None) -> pd.DataFrame:
    """Figure 7(c): retrieval quality at the full budget as the collections grow. For each
    ``sweep.negatives`` value the first ``sweep.questions_per_source`` questions of each source
    get collections with that many negative documents (seeded as in ingest), split into
    passages and linked into the KGP graph (``retrieve.graph``; entity graphs from the stored
    passage mentions ``graph_features``, KNN graphs from the embeddings) as the main pipelines
    do; each of ``sweep.methods`` then runs on them."""
    from kgp_kedro.corpus import build_collections, split_passages
    from kgp_kedro.pipelines.kg.nodes import (build_entity_graphs, build_knn_graphs,
                                              build_tfidf_graphs)
    from kgp_kedro.pipelines.retrieve.nodes import retrieve_passages

    builders = {"entity": lambda ps: build_entity_graphs(ps, graph_features, graph),
                "knn": lambda ps: build_knn_graphs(ps, embeddings, graph),
                "tfidf": lambda ps: build_tfidf_graphs(ps, graph)}

    budget = int(shared.get("budget", 30))
    subset = questions.groupby("source", sort=False).head(int(sweep["questions_per_source"]))
    rows = []
    for negatives in sweep["negatives"]:
        documents = build_collections(subset, own_documents, int(negatives), seed)
        documents = documents[documents["collection_id"].isin(subset["collection_id"])]
        sized = split_passages(documents, passages["sentence_level"], passages["max_chars"])
        edges = builders[graph["builder"]](sized)
        size = (sized.groupby(["source", "collection_id"])
                .agg(documents=("doc_id", "nunique"), passages=("passage_id", "size"))
                .groupby("source").mean())
        for name in sweep["methods"]:
            spec = shared["methods"][name]
            table = retrieve_passages(subset, sized, spec, shared, f"{name}@{negatives}",
                                      edges=edges, embeddings=embeddings, encoder=encoder)
            if table.empty:
                continue
            _, summary = score_retrieval(subset, sized, [budget], table)
            rows.append(summary.assign(method=name, negatives=int(negatives))
                        .merge(size, left_on="source", right_index=True))
    if not rows:
        return pd.DataFrame(columns=[*SUMMARY_COLUMNS, "negatives", "documents", "passages"])
    return pd.concat(rows, ignore_index=True)


def plot_collection_size(sweep: pd.DataFrame) -> go.Figure:
    """Supporting-passage recall at the budget against documents per collection (Figure 7c)."""
    return plot_lines_by_source(sweep, "documents", "recall",
                                "Retrieval vs collection size (KGP Figure 7c)",
                                "documents per collection", "supporting-passage recall at the budget")
