"""The reranker EWEK-QA needs, trained here: no cross-encoder weights install offline, so the
shipped MiniLM (all-MiniLM-L6-v2) gets a fresh one-logit head and is fine-tuned with binary
cross-entropy on (question, quote) pairs whose labels are the datasets' supporting facts: a
Paragraph Splitter quote is positive when it holds a supporting passage.

Only questions that are never read give pairs: those of the bundled train files
(``training.sources``), or the ingested questions not in ``qa_questions``, taken from the sources
in turn (so every dataset is trained on), and a share of them is held out for the rerank guard
(:mod:`kgp_kedro.ewek.guard`: the model's AUC on their pairs, and recall@k of their quotes in
the filter's order against the model's). Negatives
come from the same question's collection: the non-supporting quotes BM25 ranks highest (the
fast filter's own mistakes, which the reranker has to fix) and, for the rest, random ones."""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from kgp_kedro.ewek.params import RerankParams, SplitterParams, TrainingParams
from kgp_kedro.ewek.quotes import collection_pages, paragraph_splitter
from kgp_kedro.search.lexical import Bm25Index
from kgp_kedro.search.ranking import top_k
from kgp_kedro.training.examples import is_heldout

logger = logging.getLogger(__name__)


@dataclass
class TrainingPairs:
    """Labelled (question, quote) pairs; ``question_ids`` name each pair's question."""

    questions: list[str] = field(default_factory=list)
    quotes: list[str] = field(default_factory=list)
    labels: list[float] = field(default_factory=list)
    question_ids: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def n_questions(self) -> int:
        return len(set(self.question_ids))

    def add(self, question_id: str, question: str, quotes: Sequence[tuple[str, float]]) -> None:
        for text, label in quotes:
            self.question_ids.append(question_id)
            self.questions.append(question)
            self.quotes.append(text)
            self.labels.append(label)


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


def train_cross_encoder(pairs: TrainingPairs, params: TrainingParams):
    """``(cross_encoder, seconds)``: the base model with a new head, trained on ``pairs``
    by the fine-tuning every model here shares (:func:`~kgp_kedro.training.optim.fit`: AdamW,
    linear warm-up and decay, gradient norm clipped to 1), in eval mode. Seeded: the
    same pairs and parameters give the same weights on one device."""
    import torch
    from sentence_transformers import CrossEncoder

    from kgp_kedro.models.devices import resolve_device
    from kgp_kedro.models.encoders import resolve_model_path
    from kgp_kedro.training.optim import fit

    if not len(pairs):
        raise ValueError("no training pairs: the questions not read have no collection with "
                         "both supporting and other quotes (raise the ingest limit, or set "
                         "ewek.rerank.cross_encoder to a trained model)")
    start = time.perf_counter()
    torch.manual_seed(params.seed)
    device = resolve_device(params.device)
    from transformers.utils import logging as hf_logging

    # a cross-encoder made from a bi-encoder checkpoint: sentence-transformers warns that it
    # converts it and transformers that the classifier is missing; both expected (a new head)
    st_logger = logging.getLogger("sentence_transformers")
    verbosity, st_level = hf_logging.get_verbosity(), st_logger.level
    hf_logging.set_verbosity_error()
    st_logger.setLevel(logging.ERROR)
    try:
        model = CrossEncoder(resolve_model_path(params.base_model), num_labels=1, device=device,
                             max_length=params.max_length)
    finally:
        hf_logging.set_verbosity(verbosity)
        st_logger.setLevel(st_level)
    logger.info("cross-encoder: %s with a new one-logit head, trained on %d pairs",
                params.base_model, len(pairs))
    labels = torch.tensor(pairs.labels, dtype=torch.float32)
    positives = float(labels.sum())
    # balanced loss: positives weigh as much as negatives in all
    weight = (len(labels) - positives) / positives if params.balance and positives else 1.0
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(weight))

    def loss_of(batch: list[int]):
        features = model.preprocess([(pairs.questions[i], pairs.quotes[i]) for i in batch])
        features = {k: v.to(model.device) if hasattr(v, "to") else v
                    for k, v in features.items()}
        logits = model(features)["scores"].view(-1)
        return loss_fn(logits, labels[batch].to(logits.device))

    fit(model, list(range(len(pairs))), params, loss_of, "train cross-encoder")
    seconds = time.perf_counter() - start
    logger.info("cross-encoder trained on %d pairs, %d epoch(s), on %s in %.1f s", len(pairs),
                params.epochs, device, seconds)
    return model, seconds


def question_auc(pairs: TrainingPairs, scores: Sequence[float]) -> float:
    """Mean over the questions of ``pairs`` (those with supporting and other quotes) of the
    ROC AUC of ``scores`` within the question: how well they rank a question's supporting
    quotes above its others, which is what a rerank does (a pooled AUC also rewards telling
    questions apart). NaN when no question has both labels."""
    from sklearn.metrics import roc_auc_score

    frame = pd.DataFrame({"q": pairs.question_ids, "label": pairs.labels, "score": scores})
    aucs = [roc_auc_score(part["label"], part["score"]) for _, part in frame.groupby("q")
            if part["label"].nunique() == 2]
    return float(np.mean(aucs)) if aucs else math.nan


def pairs_auc(cross_encoder, pairs: TrainingPairs, batch_size: int = 32) -> float:
    """:func:`question_auc` of the cross-encoder's scores on ``pairs``."""
    from kgp_kedro.ewek.rerank import pair_scores

    if len(set(pairs.labels)) < 2:
        return math.nan
    return question_auc(pairs, pair_scores(cross_encoder, list(zip(pairs.questions, pairs.quotes)),
                                           batch_size))
