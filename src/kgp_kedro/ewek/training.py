"""The pairs EWEK-QA's reranker is trained on: no cross-encoder weights install offline, so the
shipped MiniLM (all-MiniLM-L6-v2) gets a fresh one-logit head and is fine-tuned
(:mod:`kgp_kedro.training.cross_encoder`) with binary cross-entropy on (question, quote) pairs
whose labels are the datasets' supporting facts: a Paragraph Splitter quote is positive when it
holds a supporting passage.

Only questions that are never read give pairs: those of the bundled train files
(``training.sources``), or the ingested questions not in ``qa_questions``, taken from the sources
in turn (so every dataset is trained on), and a share of them is held out for the rerank guard
(:mod:`kgp_kedro.ewek.guard`: the model's AUC on their pairs, and recall@k of their quotes in
the filter's order against the model's). Negatives
come from the same question's collection: the non-supporting quotes BM25 ranks highest (the
fast filter's own mistakes, which the reranker has to fix) and, for the rest, random ones.
The trained model is kept by a digest of its pairs and parameters (``training.cache_dir``), so
an unchanged re-run loads it."""
from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd

from kgp_kedro.ewek.params import RerankParams, SplitterParams, TrainingParams
from kgp_kedro.ewek.quotes import collection_pages, paragraph_splitter
from kgp_kedro.search.lexical import Bm25Index
from kgp_kedro.search.ranking import top_k
from kgp_kedro.training.cross_encoder import TrainingPairs
from kgp_kedro.training.examples import is_heldout

logger = logging.getLogger(__name__)


def interleave_sources(questions: pd.DataFrame) -> list:
    """The rows of ``questions`` taken from each source in turn (file order within one)."""
    by_source = [list(part.itertuples(index=False))
                 for _, part in questions.groupby("source", sort=False)]
    return [rows[i] for i in range(max(map(len, by_source), default=0))
            for rows in by_source if i < len(rows)]


def question_pairs(question: str, pool, supporting: set[str], params: TrainingParams,
                   rng: np.random.Generator, k1: float = 1.5,
                   b: float = 0.75) -> list[tuple[str, float]]:
    """``(quote text, label)`` of one question's collection: every quote holding a supporting
    passage (1), then ``negatives_per_positive`` non-supporting quotes per positive (0), the
    ``hard_negatives`` share of them the ones BM25 (over the whole pool, as the fast filter
    sees it) scores highest for the question, the rest drawn at random from the others. Empty
    without a positive or a negative."""
    positive = [p for p in pool if supporting & set(p.passage_ids)]
    negative = [p for p in pool if not supporting & set(p.passage_ids)]
    if not positive or not negative:
        return []
    take = min(len(negative), params.negatives_per_positive * len(positive))
    hard = min(take, round(params.hard_negatives * take))
    scores = Bm25Index([p.text for p in pool], k1, b).scores(question)   # the filter's view
    ranked, _ = top_k(np.array([s for p, s in zip(pool, scores)
                                if not supporting & set(p.passage_ids)]), len(negative))
    chosen = [int(i) for i in ranked[:hard]]
    rest = [int(i) for i in ranked[hard:]]
    if take > hard:
        chosen += [rest[i] for i in rng.choice(len(rest), take - hard, replace=False)]
    return [(p.text, 1.0) for p in positive] + [(negative[i].text, 0.0) for i in sorted(chosen)]


def training_pairs(questions: pd.DataFrame, documents: pd.DataFrame, passages: pd.DataFrame,
                   exclude: Sequence[str], splitter: SplitterParams, params: TrainingParams,
                   rerank: RerankParams | None = None) -> tuple[TrainingPairs, TrainingPairs]:
    """``(train, heldout)`` pairs from the collections of ``questions`` whose id is not in
    ``exclude``, the sources taken in turn: each eligible question (one with supporting and
    other quotes) goes to the held-out set (``heldout_share`` of them, :func:`is_heldout`) or
    to training; training stops at ``max_pairs`` pairs, the held-out set at
    ``heldout_pairs``. No question gives pairs to both."""
    rerank = rerank or RerankParams()
    rng = np.random.default_rng(params.seed)
    # per collection: a negative document keeps its passage ids, supporting only in its own
    supporting = {cid: set(group["passage_id"]) for cid, group in
                  passages[passages["is_supporting"].astype(bool)].groupby("collection_id")}
    docs = dict(tuple(documents.groupby("collection_id", sort=False)))
    texts = dict(tuple(passages.groupby("collection_id", sort=False)))
    skip = set(exclude)
    train, heldout = TrainingPairs(), TrainingPairs()
    eligible = 0
    for q in interleave_sources(questions):
        if len(train) >= params.max_pairs and len(heldout) >= params.heldout_pairs:
            break
        if q.question_id in skip or q.collection_id not in docs or q.collection_id not in texts:
            continue
        target = heldout if is_heldout(eligible, params.heldout_share) else train
        limit = params.heldout_pairs if target is heldout else params.max_pairs
        if len(target) >= limit:
            eligible += 1
            continue
        pool = [quote for page in collection_pages(docs[q.collection_id], texts[q.collection_id])
                for quote in paragraph_splitter(page, splitter.min_tokens, splitter.max_tokens)]
        made = question_pairs(q.question, pool, supporting.get(q.collection_id, set()), params,
                              rng, rerank.bm25_k1, rerank.bm25_b)
        if not made:
            continue
        eligible += 1
        target.add(q.question_id, q.question, made[:limit - len(target)])
    logger.info("cross-encoder pairs: %d for training (%d positive, %d questions), %d held out "
                "(%d positive, %d questions), from questions not read", len(train),
                int(sum(train.labels)), train.n_questions, len(heldout),
                int(sum(heldout.labels)), heldout.n_questions)
    return train, heldout


def trained_cross_encoder(pairs: TrainingPairs, tp: TrainingParams) -> tuple[object, float]:
    """``(cross-encoder, training seconds)``: trained on ``pairs``, or loaded from
    ``tp.cache_dir`` when the same pairs, parameters and base model trained it before (0 s)."""
    from kgp_kedro.models.cross_encoders import load_cross_encoder
    from kgp_kedro.models.encoders import resolve_model_path
    from kgp_kedro.training.artifacts import cached_model, training_digest
    from kgp_kedro.training.cross_encoder import train_cross_encoder

    if tp.cache_dir is None:
        return train_cross_encoder(pairs, tp)
    seconds = [0.0]

    def train():
        model, seconds[0] = train_cross_encoder(pairs, tp)
        return model

    digest = training_digest(zip(pairs.question_ids, pairs.questions, pairs.quotes,
                                 pairs.labels), tp.model_dump(mode="json"),
                             resolve_model_path(tp.base_model))
    model, _ = cached_model(tp.cache_dir, "ewek-cross-encoder", digest, train,
                            lambda path: load_cross_encoder(path, tp.device, tp.max_length),
                            complete="config.json")
    return model, seconds[0]
