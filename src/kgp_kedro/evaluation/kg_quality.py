"""KG quality (paper §3 "verify the constructed KGs", Figure 5, §8.6 Figure 9, Table 3)."""
from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import asdict, dataclass

import pandas as pd

from kgp_kedro.corpus.collection import supporting_passages
from kgp_kedro.graphs.build import GraphTables
from kgp_kedro.graphs.model import Graph
from kgp_kedro.plumbing.progress import track
from kgp_kedro.search.tfidf import tfidf_search

logger = logging.getLogger(__name__)

SEED_COLUMNS = ["question_id", "collection_id", "rank", "passage_id", "score"]


@dataclass(frozen=True)
class NeighbourhoodScores:
    """How well the seeds' neighbourhood C1 covers a question's supporting passages S."""

    n_seeds: int
    n_candidates: int   # |C1|
    n_supporting: int   # |S|
    n_hit: int          # |C1 ∩ S|
    sf_em: float        # 1.0 when S ⊆ C1
    precision: float    # |C1 ∩ S| / |C1|
    recall: float       # |C1 ∩ S| / |S|


def neighbourhood_scores(graph: Graph, seeds: Iterable[str],
                         supporting: Iterable[str]) -> NeighbourhoodScores:
    """Coverage of the supporting passages by the seeds and their neighbours (paper §3, Fig. 5).

    ``C1 = seeds ∪ N(seeds)`` (successors for directed KNN edges). Per question:
    **SF-EM** is 1 when every supporting passage is in C1, else 0 (averaged over questions it is
    the share of questions whose supporting facts are all covered); **precision** is
    ``|C1 ∩ S| / |C1|``; **recall** is ``|C1 ∩ S| / |S|``. A question without supporting
    passages (an unlabelled user question) has undefined scores and raises ``ValueError``.
    """
    seeds = list(dict.fromkeys(seeds))
    support = set(supporting)
    if not support:
        raise ValueError("no supporting passages: SF-EM, precision and recall are undefined")
    candidates = set(seeds)
    for seed in seeds:
        candidates.update(graph.neighbors(seed))
    hit = len(candidates & support)
    return NeighbourhoodScores(
        n_seeds=len(seeds), n_candidates=len(candidates), n_supporting=len(support), n_hit=hit,
        sf_em=float(hit == len(support)), precision=hit / len(candidates) if candidates else 0.0,
        recall=hit / len(support))


def graph_stats(graph: Graph) -> dict[str, float]:
    """Size and density of one collection's graph (paper Table 3).

    ``density`` is the share of node pairs joined by an edge, ``|E| / (n(n-1)/2)`` over
    distinct pairs. The reference code calls ``networkx.density`` on a multigraph with one edge
    per shared keyword, which counts a pair once per keyword; ours counts it once.
    """
    return {"n_nodes": len(graph.nodes), "n_edges": graph.n_edges(),
            "avg_neighbors": graph.avg_neighbors(), "density": graph.density()}


def seed_passages(questions: pd.DataFrame, passages: pd.DataFrame, top: int) -> pd.DataFrame:
    """The ``top`` TF-IDF seed passages of each question over its collection (paper §3)."""
    groups = dict(tuple(passages.groupby("collection_id", sort=False)))
    rows = []
    for q in track(questions.itertuples(index=False), "seeds", len(questions), log=logger):
        group = groups.get(q.collection_id)
        if group is None:
            continue
        order, scores = tfidf_search(q.question, group["text"].tolist(), top)
        ids = group["passage_id"].to_numpy()[order]
        rows.extend({"question_id": q.question_id, "collection_id": q.collection_id,
                     "rank": rank, "passage_id": pid, "score": float(score)}
                    for rank, (pid, score) in enumerate(zip(ids, scores)))
    return pd.DataFrame(rows, columns=SEED_COLUMNS)


def kg_quality_rows(questions: pd.DataFrame, passages: pd.DataFrame, seeds: pd.DataFrame,
                    graphs: GraphTables, variant: str) -> pd.DataFrame:
    """Per question and density setting of one KG variant: SF-EM, precision, recall of
    ``C1`` (:func:`neighbourhood_scores`), the **neighbour ratio** ``|C1| / n`` (n: the
    collection's passages; unlike the average neighbours per node it compares across
    collection sizes) and the graph's size and density. Questions without supporting passages
    (unlabelled user questions) are left out, with one warning."""
    support = supporting_passages(passages)
    sizes = passages.groupby("collection_id").size()
    seed_ids = {key: g["passage_id"].tolist()
                for key, g in seeds.groupby(["question_id", "collection_id"])}
    labelled = [q for q in questions.itertuples(index=False) if support.get(q.collection_id)]
    unlabelled = (len(questions) - len(labelled)) * len(graphs.settings)
    # one collection's graph at a time (questions grouped by collection), rows in question order
    by_collection: dict[str, list[int]] = {}
    for i, q in enumerate(labelled):
        by_collection.setdefault(q.collection_id, []).append(i)
    rows = []
    for setting in track(graphs.settings, f"kg_quality {variant}", log=logger):
        ordered: list[dict | None] = [None] * len(labelled)
        for collection_id, members in by_collection.items():
            graph = graphs.graph(collection_id, setting)
            stats = graph_stats(graph)
            for i in members:
                q = labelled[i]
                scores = neighbourhood_scores(graph, seed_ids.get((q.question_id, collection_id), []),
                                              support[collection_id])
                ordered[i] = {"source": q.source, "variant": variant, "setting": setting,
                              "question_id": q.question_id, "collection_id": collection_id,
                              **asdict(scores),
                              "collection_passages": int(sizes[collection_id]),
                              "neighbour_ratio": scores.n_candidates / int(sizes[collection_id]),
                              **stats}
        rows.extend(ordered)
    if unlabelled:
        logger.warning("kg_quality %s: %d question-settings have no supporting passages and are "
                       "left out", variant, unlabelled)
    return pd.DataFrame(rows)
