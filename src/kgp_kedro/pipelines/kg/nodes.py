"""Nodes of the kg pipeline: per collection and density setting, call a library builder."""
from __future__ import annotations

import logging
import math
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from kgp_kedro.graphs import (EDGE_COLUMNS, CollectionView, Mention, build_entity_graph,
                              build_knn_graph, build_tfidf_graph, edge_frame, iter_collections,
                              make_linker, sweep_settings)
from kgp_kedro.graphs.edges import Edges
from kgp_kedro.graphs.tfidf import document_texts, rank_tfidf_keywords
from kgp_kedro.models import SentenceEncoder

logger = logging.getLogger(__name__)


def _build_all(passages: pd.DataFrame, variant: dict[str, Any], name: str,
               build: Callable[[CollectionView, dict[str, Any]], Edges]) -> pd.DataFrame:
    """Run ``build`` on every collection for every setting of the variant's sweep."""
    settings = sweep_settings(variant.get("sweep", {}))
    collections = list(iter_collections(passages))
    frames, seconds = [], {label: 0.0 for label, _ in settings}
    for view in tqdm(collections, desc=f"kg {name}", leave=False, disable=None):
        for label, values in settings:
            start = time.perf_counter()
            edges = build(view, values)
            seconds[label] += time.perf_counter() - start
            frames.append(edge_frame(edges, view.passage_ids, view.collection_id, label))
    for label, total in seconds.items():
        logger.info("kg %s [%s]: %.1f ms per collection (%d collections)", name, label,
                    1000 * total / max(len(collections), 1), len(collections))
    if not frames:
        return pd.DataFrame(columns=EDGE_COLUMNS)
    return pd.concat(frames, ignore_index=True)


def build_tfidf_graphs(passages: pd.DataFrame, variant: dict[str, Any]) -> pd.DataFrame:
    """TF-IDF KGs of every collection, one per ``sweep.n_kw`` value."""
    ngram_range = tuple(variant.get("ngram_range", (1, 1)))
    stop_words = variant.get("stop_words", "english")
    ranking: dict[str, list[list[str]]] = {}  # one TF-IDF ranking per collection, for all n_kw

    def build(view: CollectionView, s: dict[str, Any]) -> Edges:
        if view.collection_id not in ranking:
            ranking[view.collection_id] = rank_tfidf_keywords(
                document_texts(view.texts, view.doc_index, len(view.doc_titles)), ngram_range,
                stop_words)
        return build_tfidf_graph(view.texts, view.doc_index, view.doc_titles, n_kw=int(s["n_kw"]),
                                 ngram_range=ngram_range, stop_words=stop_words,
                                 keyword_ranking=ranking[view.collection_id])

    return _build_all(passages, variant, "tfidf", build)


def _unique_passages(passages: pd.DataFrame) -> pd.DataFrame:
    """One row per passage id: a document shared by collections is encoded/linked once."""
    return passages.drop_duplicates("passage_id")[["passage_id", "text"]].reset_index(drop=True)


def embed_passages(passages: pd.DataFrame, variant: dict[str, Any]) -> pd.DataFrame:
    """Embed every distinct passage once with the variant's sentence encoder."""
    unique = _unique_passages(passages)
    encoder = SentenceEncoder(**variant.get("encoder", {}))
    start = time.perf_counter()
    vectors = encoder.encode(unique["text"].tolist(), show_progress=sys.stderr.isatty())
    logger.info("Encoded %d passages with %s on %s: %.0f passages/s", len(unique), encoder.name,
                encoder.device, len(unique) / max(time.perf_counter() - start, 1e-9))
    return pd.DataFrame({"passage_id": unique["passage_id"], "embedding": list(vectors)})


def build_knn_graphs(passages: pd.DataFrame, embeddings: pd.DataFrame,
                     variant: dict[str, Any]) -> pd.DataFrame:
    """KNN KGs of every collection, one per ``sweep.k`` value."""
    lookup = dict(zip(embeddings["passage_id"], embeddings["embedding"]))
    missing = set(passages["passage_id"]) - set(lookup)
    if missing:
        raise ValueError(f"{len(missing)} passages have no embedding (e.g. {sorted(missing)[0]}):"
                         " passage_embeddings is stale, re-run embed_passages")
    device = variant.get("encoder", {}).get("device", "auto")
    metric = variant.get("metric", "cosine")

    def build(view: CollectionView, s: dict[str, Any]) -> Edges:
        matrix = np.stack([np.asarray(lookup[p], dtype=np.float32) for p in view.passage_ids])
        return build_knn_graph(matrix, k=int(s["k"]), device=device, metric=metric)

    return _build_all(passages, variant, "knn", build)


def link_entities(passages: pd.DataFrame, variant: dict[str, Any]) -> pd.DataFrame:
    """Entity mentions of every distinct passage, from the configured linker."""
    unique = _unique_passages(passages)
    linker = make_linker(**variant.get("linker", {"backend": "offline"}))
    start = time.perf_counter()
    mentions = linker.annotate(unique["text"].tolist())
    logger.info("Linked %d passages with the %s linker: %.0f passages/s", len(unique),
                linker.name, len(unique) / max(time.perf_counter() - start, 1e-9))
    return pd.DataFrame({
        "passage_id": unique["passage_id"],
        "surfaces": [[m.surface for m in ms] for ms in mentions],
        "entities": [[m.entity for m in ms] for ms in mentions],
        # NaN: no linker score (offline linker), scored in the collection instead
        "scores": [[math.nan if m.score is None else m.score for m in ms] for ms in mentions],
    })


def build_entity_graphs(passages: pd.DataFrame, mentions: pd.DataFrame,
                        variant: dict[str, Any]) -> pd.DataFrame:
    """Entity (TAGME) KGs of every collection, one per ``sweep.prior_threshold`` value."""
    lookup = {
        pid: [Mention(surface=s, entity=e, score=None if x is None or math.isnan(x) else float(x))
              for s, e, x in zip(surfaces, entities, scores)]
        for pid, surfaces, entities, scores in zip(mentions["passage_id"], mentions["surfaces"],
                                                   mentions["entities"], mentions["scores"])}
    same_document = bool(variant.get("same_document", True))
    return _build_all(passages, variant, "entity", lambda view, s: build_entity_graph(
        view.texts, view.doc_index, view.doc_titles, [lookup.get(p, []) for p in view.passage_ids],
        prior_threshold=float(s["prior_threshold"]), same_document=same_document))
