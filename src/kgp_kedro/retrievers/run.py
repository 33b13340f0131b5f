"""Running one retriever over every question: the ``retrieved_<method>`` table."""
from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd

from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs.build import GraphTables, attach
from kgp_kedro.models.embeddings import EmbeddingLookup
from kgp_kedro.plumbing.progress import Progress
from kgp_kedro.retrievers.base import Resources, Retriever, SkippedMethod

logger = logging.getLogger(__name__)

RETRIEVED_COLUMNS = ["source", "scope", "question_id", "collection_id", "method", "rank",
                     "passage_id", "score", "hop", "path", "latency_ms", "calls"]


class CollectionSource:
    """Collections of a passages table with what a method needs attached (a KG setting,
    passage embeddings, a faiss index). The last collection is kept for the next question,
    which often shares it (a documents source, the pooled setting); only one, so memory does
    not grow with the run."""

    def __init__(self, passages: pd.DataFrame, graphs: GraphTables | None = None,
                 setting: str | None = None, embeddings: EmbeddingLookup | None = None,
                 ann: dict | None = None) -> None:
        self._groups = dict(tuple(passages.groupby("collection_id", sort=False)))
        self.graphs, self.setting, self.embeddings, self.ann = graphs, setting, embeddings, ann
        self._last: Collection | None = None

    def __contains__(self, collection_id: str) -> bool:
        return collection_id in self._groups

    def get(self, collection_id: str) -> Collection:
        if self._last is None or self._last.collection_id != collection_id:
            collection = attach(Collection.from_passages(collection_id, self._groups[collection_id],
                                                         ann=self.ann),
                                self.graphs, self.setting, self.embeddings)
            index = collection.vector_index()  # built here, not inside a question's latency
            if index is not None:
                logger.info("%s: faiss %s index of %d passages built in %.2f s", collection_id,
                            index.kind, index.size, index.build_seconds)
            self._last = collection
        return self._last


def _rows(q, visits: list, base: dict) -> list[dict]:
    """The table rows of one question's visits (one null row when it has none)."""
    base = {"source": q.source, "question_id": q.question_id,
            "collection_id": q.collection_id, **base}
    if not visits:
        return [{**base, "rank": -1, "passage_id": None, "score": np.nan, "hop": -1,
                 "path": ""}]
    return [{**base, "rank": rank, "passage_id": v.passage_id, "score": v.score, "hop": v.hop,
             "path": " > ".join(v.path)} for rank, v in enumerate(visits)]


def run_retriever(retriever: Retriever, questions: pd.DataFrame, collections: CollectionSource,
                  name: str, scope: str = "per_question") -> pd.DataFrame:
    """Ranked contexts of method ``name`` for every question: one row per context the reader
    gets, in rank order (``passage_id`` the last passage of the row's ``path``), with the hop,
    latency and model calls; a question with no passage (the ``none`` method) keeps one row
    with a null passage so its latency is recorded. ``scope`` labels the rows
    (``per_question`` or ``pooled``).

    A retriever whose ``batch_size`` is above 1 (KGP) gets its questions ``batch_size`` at a
    time through :meth:`~kgp_kedro.retrievers.base.Retriever.retrieve_batch`, which advances
    them together; each question of a batch is then given the batch's wall time divided by
    its questions as ``latency_ms`` (a per-question mean), and as ``calls`` the model calls
    made on its behalf (:attr:`~kgp_kedro.retrievers.base.Retriever.batch_calls`): a call that
    served several questions at once counts one call for each of them, not a fraction of a
    call. Building a collection (its KG, its embeddings) and the method's index-time work on
    it (:meth:`~kgp_kedro.retrievers.base.Retriever.prepare`) are not counted, as in the
    one-question loop."""
    asked = [q for q in questions.itertuples(index=False) if q.collection_id in collections]
    size = max(1, int(retriever.batch_size))
    rows: list[dict] = []
    with Progress(f"retrieve {name}", len(asked), log=logger) as bar:
        for start in range(0, len(asked), size):
            batch = asked[start:start + size]
            calls_before = retriever.model_calls()
            held = [collections.get(q.collection_id) for q in batch]
            retriever.prepare(held)
            begin = time.perf_counter()
            if size == 1:
                found = [retriever.retrieve(batch[0].question, held[0])]
                calls = [retriever.model_calls() - calls_before]
            else:
                found = retriever.retrieve_batch([q.question for q in batch], held)
                calls = retriever.batch_calls
            latency = 1000 * (time.perf_counter() - begin) / len(batch)
            for q, visits, charged in zip(batch, found, calls):
                rows.extend(_rows(q, visits, {"scope": scope, "method": name,
                                              "latency_ms": latency, "calls": int(charged)}))
            bar.update(len(batch))
    return pd.DataFrame(rows, columns=RETRIEVED_COLUMNS)


def retrieve_all(questions: pd.DataFrame, passages: pd.DataFrame, method, budget: int,
                 encoder=None, llm=None, graphs: GraphTables | None = None,
                 setting: str | None = None, embeddings: EmbeddingLookup | None = None,
                 ann: dict | None = None, scope: str = "per_question",
                 label: str | None = None) -> pd.DataFrame:
    """``retrieved_<method>`` of a configured :class:`~kgp_kedro.pipelines.parameter_tree.Method` (an
    empty table, with a warning, when the method cannot run here). ``encoder`` and ``llm`` are
    loaded models, handed only to methods that require them."""
    name = label or method.name
    try:
        retriever = method.retriever(method.params, Resources(budget, encoder, llm))
    except SkippedMethod as skipped:
        logger.warning("retrieval method %s skipped: %s", name, skipped)
        return pd.DataFrame(columns=RETRIEVED_COLUMNS)
    source = CollectionSource(passages, graphs, setting, embeddings, ann)
    return run_retriever(retriever, questions, source, name, scope)
