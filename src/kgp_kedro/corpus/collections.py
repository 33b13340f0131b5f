"""Document collections: a question's own documents plus sampled negatives (paper §8.1).

Two rules fill a collection, chosen per dataset by ``ingest.collection_size``:

- **a target size** (``collection_size: {hotpotqa: 715, musique: 748, 2wikimultihopqa: 294}``,
  the paper's Table 3 passages per collection, the default): documents of other questions are
  added, in a seeded order, until the collection holds about that many passages;
- **a number of documents** (a dataset absent from ``collection_size`` or mapped to null, or
  ``collection_size: null`` for all): ``negatives_per_question`` documents are added.

The pool a question draws from is, by default, the documents of every other question of its
source (the paper's sampling): adding questions to a source then changes every collection's
negatives. With ``negative_pool: N`` a question draws from the documents of its source's first
``N`` questions and of the questions before it (file order) only, so questions appended to a
source (a larger ``limit``, a grown file) leave every existing collection as it was, once the
source holds ``N`` questions: an incremental run builds the new questions' collections alone,
and a build from scratch gives the same collections.

Sizes are counted in each dataset's own passage unit (:func:`document_units`): a HotpotQA or
2Wiki sentence, a MuSiQue paragraph, the passages of the default ``passages`` settings. The
documents drawn therefore do not depend on the ``passages`` settings: a run that makes every
dataset paragraph-level (``conf/paragraphs``) has the same collections with fewer passages.
"""
from __future__ import annotations

import logging
import re
import zlib
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from kgp_kedro.corpus.schema import DOCUMENT_COLUMNS

logger = logging.getLogger(__name__)

_BLANK_LINE = re.compile(r"\n\s*\n")


def _question_rng(seed: int, question_id: str) -> np.random.Generator:
    """A generator that depends on the seed and the question only, not on the question order,
    so changing ``limit`` keeps every remaining question's negatives."""
    return np.random.default_rng([seed, zlib.crc32(question_id.encode("utf-8"))])


def document_units(documents: pd.DataFrame) -> np.ndarray:
    """Passages each document counts for in a target size: its non-empty dataset sentences
    (HotpotQA, 2Wiki: their supporting facts are sentences) or, without a sentence split, its
    paragraphs (blank-line blocks; a MuSiQue paragraph is one)."""
    def units(sentences: Any, text: str) -> int:
        if sentences is not None and len(sentences) > 0:
            return max(1, sum(1 for s in sentences if str(s).strip()))
        return max(1, sum(1 for p in _BLANK_LINE.split(text or "") if p.strip()))

    return np.fromiter((units(s, t) for s, t in zip(documents["sentences"], documents["text"])),
                       dtype=np.int64, count=len(documents))


def _with_dataset(documents: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    """``documents`` with a ``dataset`` column (from the questions of its source), which the
    passages stage reads to pick each document's passage unit."""
    if "dataset" in documents.columns or "dataset" not in questions.columns:
        return documents
    of_source = dict(zip(questions["source"], questions["dataset"]))
    return documents.assign(dataset=documents["source"].map(of_source))


def _target(collection_size: Mapping[str, int | None] | None, source: str,
            dataset: str | None) -> int | None:
    """The target passages of a source's collections: its name's entry, else its dataset's."""
    if not collection_size:
        return None
    if source in collection_size:
        return collection_size[source]
    return collection_size.get(dataset) if dataset is not None else None


def _fill_to_size(candidates: np.ndarray, units: np.ndarray, need: int,
                  rng: np.random.Generator) -> np.ndarray:
    """Candidates (positions in the pool) taken in a seeded random order until their passages
    reach ``need``; the last one is kept only when it brings the total closer to ``need``."""
    order = rng.permutation(candidates)
    total = np.cumsum(units[order])
    cut = int(np.searchsorted(total, need))   # first prefix reaching need
    if cut >= len(order):
        return order
    below = int(total[cut - 1]) if cut > 0 else 0
    keep_last = int(total[cut]) - need <= need - below
    return order[:cut + keep_last]


def _opened_by(question_collections: pd.Series, pool_collections: pd.Series) -> np.ndarray:
    """For each pool document, the position (in the questions' order) of the first question
    whose collection it belongs to."""
    first = {}
    for i, cid in enumerate(question_collections):
        first.setdefault(cid, i)
    return pool_collections.map(first).fillna(len(question_collections)).to_numpy(np.int64)


def build_collections(questions: pd.DataFrame, documents: pd.DataFrame,
                      negatives_per_question: int, seed: int,
                      collection_size: Mapping[str, int | None] | None = None,
                      negative_pool: int | None = None) -> pd.DataFrame:
    """Complete each question's collection with negative documents (paper §8.1).

    Negatives are drawn, seeded per question (the same seed gives the same collection, whatever
    the other questions' order), from the documents of *other* questions of the same source; a
    candidate whose title or text equals one of the question's own documents is never drawn
    (it would duplicate a document already there). A source whose name or dataset has a number
    in ``collection_size`` is filled to about that many passages (:func:`document_units`);
    the others get ``negatives_per_question`` documents. A pool too small for the target or the
    count gives every document it has, with a warning. Sources whose questions share one
    collection (user documents) get no negatives. With ``negative_pool`` (a number of
    questions) the question at position ``i`` of its source (the questions' order, the file's)
    draws only from documents first seen in the collections of the source's first
    ``max(negative_pool, i)`` questions (see the module). Returns the documents table with the
    negatives appended (``is_negative`` true, ``is_supporting`` false, no sentence labels) and
    a ``dataset`` column (each document's dataset, for its passage unit).
    """
    if negatives_per_question < 0:
        raise ValueError(f"negatives_per_question must be >= 0, got {negatives_per_question}")
    if negative_pool is not None and negative_pool < 1:
        raise ValueError(f"negative_pool must be a positive number of questions or null, got "
                         f"{negative_pool}")
    for key, size in (collection_size or {}).items():
        if size is not None and size < 1:
            raise ValueError(f"collection_size.{key} must be a positive number of passages or "
                             f"null, got {size}")
    documents = _with_dataset(documents, questions)
    if documents.empty:
        return documents.reset_index(drop=True)
    columns = [*DOCUMENT_COLUMNS, *(["dataset"] if "dataset" in documents.columns else [])]
    datasets = dict(zip(questions["source"], questions.get("dataset", questions["source"])))

    added: list[pd.DataFrame] = []
    for source, src_docs in documents.groupby("source", sort=False):
        src_questions = questions[questions["source"] == source]
        target = _target(collection_size, source, datasets.get(source))
        if target is None and negatives_per_question == 0:
            continue
        if src_questions["collection_id"].nunique() < 2:
            continue  # one shared collection: nothing outside it to sample from
        # the pool: one entry per distinct (title, text), remembering its home collection
        pool = src_docs.drop_duplicates(["title", "text"]).reset_index(drop=True)
        units = document_units(pool)
        # titles, texts and collections as integer codes shared by the pool and the documents
        titles = pd.factorize(pd.concat([pool["title"], src_docs["title"]]))[0]
        texts = pd.factorize(pd.concat([pool["text"], src_docs["text"]]))[0]
        homes = pd.factorize(pd.concat([pool["collection_id"], src_docs["collection_id"]]))[0]
        n = len(pool)
        pool_title, pool_text, pool_home = titles[:n], texts[:n], homes[:n]
        own_rows = pd.Series(np.arange(len(src_docs))).groupby(
            src_docs["collection_id"].to_numpy()).agg(list).to_dict()
        own_units_all = document_units(src_docs)
        opened = _opened_by(src_questions["collection_id"], pool["collection_id"])
        short, sizes, picks = 0, [], []
        for i, (qid, cid) in enumerate(zip(src_questions["question_id"],
                                           src_questions["collection_id"])):
            own = np.asarray(own_rows.get(cid, []), dtype=np.int64)
            home = homes[n + own[0]] if len(own) else -1
            allowed = ~((pool_home == home) | np.isin(pool_title, titles[n + own])
                        | np.isin(pool_text, texts[n + own]))
            if negative_pool is not None:   # the first max(N, i) questions' documents only
                allowed &= opened < max(negative_pool, i)
            candidates = np.flatnonzero(allowed)
            rng = _question_rng(seed, qid)
            if target is None:
                take = min(negatives_per_question, len(candidates))
                short += take < negatives_per_question
                picked = rng.choice(candidates, size=take, replace=False)
            else:
                own_units = int(own_units_all[own].sum())
                need = target - own_units
                picked = (_fill_to_size(candidates, units, need, rng) if need > 0
                          else candidates[:0])
                short += own_units + int(units[candidates].sum()) < target
                sizes.append(own_units + int(units[picked].sum()))
            picks.append((cid, len(own), np.sort(picked)))
        if picks:
            index = np.concatenate([p for _, _, p in picks]).astype(np.int64)
            added.append(pool.take(index).assign(
                collection_id=np.repeat([c for c, _, _ in picks], [len(p) for _, _, p in picks]),
                sentence_support=None, is_supporting=False, is_negative=True,
                position=np.concatenate([np.arange(start, start + len(p))
                                         for _, start, p in picks]).astype(np.int64)))
        if target is None:
            if short:
                logger.warning("%s: %d of %d questions got fewer than %d negative documents "
                               "(pool too small)", source, short, len(src_questions),
                               negatives_per_question)
            continue
        if short:
            logger.warning("%s: the pool (%d documents, %d passages) is too small for %d passages "
                           "per collection: %d of %d collections hold every document of the "
                           "pool and fall short (mean %.1f passages)", source, len(pool),
                           int(units.sum()), target, short, len(src_questions),
                           float(np.mean(sizes)))
        else:
            logger.info("%s: collections filled to %d passages (mean %.1f, from a pool of %d "
                        "documents)", source, target, float(np.mean(sizes)), len(pool))
    if not added:
        return documents.reset_index(drop=True)
    result = pd.concat([documents, *(frame[columns] for frame in added)], ignore_index=True)
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
