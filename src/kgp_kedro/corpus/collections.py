"""Document collections: a question's own documents plus sampled negatives (paper §8.1)."""
from __future__ import annotations

import logging
import zlib
from typing import Any

import numpy as np
import pandas as pd

from kgp_kedro.corpus.schema import DOCUMENT_COLUMNS

logger = logging.getLogger(__name__)


def _question_rng(seed: int, question_id: str) -> np.random.Generator:
    """A generator that depends on the seed and the question only, not on the question order,
    so changing ``limit`` keeps every remaining question's negatives."""
    return np.random.default_rng([seed, zlib.crc32(question_id.encode("utf-8"))])


def build_collections(questions: pd.DataFrame, documents: pd.DataFrame,
                      negatives_per_question: int, seed: int) -> pd.DataFrame:
    """Add ``negatives_per_question`` negative documents to each question's collection.

    Paper §8.1 pairs each question's golden documents with randomly sampled negative
    documents. Negatives are drawn, seeded, from the documents of *other* questions of the same
    source; a candidate whose title or text equals one of the question's own documents is never
    drawn (it would duplicate a document already there). Sources whose questions share one
    collection (user documents) get no negatives. Returns the documents table with the
    negatives appended (``is_negative`` true, ``is_supporting`` false, no sentence labels).
    """
    if negatives_per_question < 0:
        raise ValueError(f"negatives_per_question must be >= 0, got {negatives_per_question}")
    if negatives_per_question == 0 or documents.empty:
        return documents.reset_index(drop=True)

    added: list[dict[str, Any]] = []
    for source, src_docs in documents.groupby("source", sort=False):
        src_questions = questions[questions["source"] == source]
        if src_questions["collection_id"].nunique() < 2:
            continue  # one shared collection: nothing outside it to sample from
        # the pool: one entry per distinct (title, text), remembering its home collection
        pool = src_docs.drop_duplicates(["title", "text"]).reset_index(drop=True)
        by_collection: dict[str, pd.DataFrame] = dict(tuple(src_docs.groupby("collection_id")))
        short = 0
        for qid, cid in zip(src_questions["question_id"], src_questions["collection_id"]):
            own = by_collection.get(cid, pool.iloc[0:0])
            allowed = ~(pool["collection_id"].eq(cid) | pool["title"].isin(own["title"])
                        | pool["text"].isin(own["text"]))
            candidates = np.flatnonzero(allowed.to_numpy())
            take = min(negatives_per_question, len(candidates))
            short += take < negatives_per_question
            picked = _question_rng(seed, qid).choice(candidates, size=take, replace=False)
            start = len(own)
            for offset, row in enumerate(pool.iloc[np.sort(picked)].itertuples(index=False)):
                doc = row._asdict()
                doc.update(collection_id=cid, sentence_support=None, is_supporting=False,
                           is_negative=True, position=start + offset)
                added.append(doc)
        if short:
            logger.warning("%s: %d questions got fewer than %d negatives (pool too small)",
                           source, short, negatives_per_question)
    result = pd.concat([documents, pd.DataFrame(added, columns=DOCUMENT_COLUMNS)],
                       ignore_index=True)
    return result.sort_values(["collection_id", "position"], kind="stable").reset_index(drop=True)


def pool_collections(questions: pd.DataFrame, passages: pd.DataFrame,
                     ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pooled setting: all questions of a source share one collection, the union of their
    collections' passages (a passage id is the same in every collection holding it). Returns
    the questions with ``collection_id`` set to ``<source>/pooled`` (their own collection kept
    in ``own_collection_id``, where their supporting passages are labelled) and the pooled
    passages (``is_supporting`` false: support is per question, not per pooled passage)."""
    pooled_id = questions["source"] + "/pooled"
    pooled_questions = questions.assign(own_collection_id=questions["collection_id"],
                                        collection_id=pooled_id)
    pooled = (passages.drop_duplicates(["source", "passage_id"])
              .assign(collection_id=lambda p: p["source"] + "/pooled", is_supporting=False)
              .reset_index(drop=True))
    return pooled_questions, pooled
