"""Node of the retrieve pipeline: run one configured method over every question."""
from __future__ import annotations

import logging
import time
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from kgp_kedro.graphs import Adjacency
from kgp_kedro.llm import make_llm
from kgp_kedro.models import SentenceEncoder
from kgp_kedro.retrieval.methods import Collection, MethodRunner, SkippedMethod

logger = logging.getLogger(__name__)

RETRIEVED_COLUMNS = ["source", "setting", "question_id", "collection_id", "method", "rank",
                     "passage_id", "score", "hop", "path", "latency_ms", "calls"]


def retrieve_passages(questions: pd.DataFrame, passages: pd.DataFrame, method: dict[str, Any],
                      shared: dict[str, Any], name: str, edges: pd.DataFrame | None = None,
                      embeddings: pd.DataFrame | None = None,
                      encoder: dict[str, Any] | None = None,
                      llm: dict[str, Any] | None = None,
                      setting: str = "collection") -> pd.DataFrame:
    """Ranked passages of method ``name`` for every question (one row per passage; a question
    with no passage, e.g. the ``none`` method, keeps one row with a null passage so its
    latency is recorded). ``llm`` (parameters_llm.yml) serves IRCoT and the chat agent.
    ``setting`` labels the rows (``collection`` or ``pooled``); ``shared.ann`` makes dense
    search go through a faiss index."""
    try:
        runner = MethodRunner(method, budget=int(shared.get("budget", 30)),
                              encoder=SentenceEncoder(**encoder) if encoder else None,
                              llm=make_llm(llm) if llm else None)
    except SkippedMethod as skipped:
        logger.warning("retrieval method %s skipped: %s", name, skipped)
        return pd.DataFrame(columns=RETRIEVED_COLUMNS)
    vectors = (dict(zip(embeddings["passage_id"], embeddings["embedding"]))
               if embeddings is not None else None)
    edge_groups = ({cid: g for cid, g in edges[edges["setting"] == shared["graph"]["setting"]]
                    .groupby("collection_id")} if edges is not None else {})
    by_collection = dict(tuple(passages.groupby("collection_id", sort=False)))
    # the last collection's view, reused by the next question when it shares the collection
    # (a documents source, a pooled setting); kept to one so memory does not grow with the run
    cached: dict[str, Collection] = {}

    def collection_of(cid: str) -> Collection:
        if cid not in cached:
            cached.clear()
            ps = by_collection[cid]
            ids = ps["passage_id"].tolist()
            collection = Collection(
                passage_ids=ids, texts=ps["text"].tolist(),
                supporting=ps.loc[ps["is_supporting"], "passage_id"].tolist(),
                vectors=np.stack([vectors[p] for p in ids]).astype(np.float32) if vectors else None,
                ann=shared.get("ann"))
            if edges is not None:
                adjacency = Adjacency.from_edges(ids, edge_groups.get(cid, edges.iloc[0:0]))
                collection.neighbors = lambda p, adj=adjacency: sorted(adj.neighbors(p))
            index = collection.vector_index()  # built here, not inside a question's latency
            if index is not None:
                logger.info("%s: faiss %s index of %d passages built in %.2f s", name,
                            index.kind, index.size, index.build_seconds)
            cached[cid] = collection
        return cached[cid]

    rows = []
    for q in tqdm(questions.itertuples(index=False), total=len(questions),
                  desc=f"retrieve {name}", leave=False, disable=None):
        if q.collection_id not in by_collection:
            continue
        collection = collection_of(q.collection_id)
        calls_before = runner.model_calls()
        start = time.perf_counter()
        visits = runner.retrieve(q.question, collection)
        latency = 1000 * (time.perf_counter() - start)
        calls = runner.model_calls() - calls_before
        base = {"source": q.source, "setting": setting, "question_id": q.question_id,
                "collection_id": q.collection_id, "method": name, "latency_ms": latency,
                "calls": calls}
        if not visits:
            rows.append({**base, "rank": -1, "passage_id": None, "score": np.nan, "hop": -1,
                         "path": ""})
        for rank, v in enumerate(visits):
            rows.append({**base, "rank": rank, "passage_id": v.passage_id, "score": v.score,
                         "hop": v.hop, "path": " > ".join(v.path)})
    return pd.DataFrame(rows, columns=RETRIEVED_COLUMNS)
