"""A cross-encoder fine-tuned on labelled (question, text) pairs: the base model (a
sentence-transformers checkpoint) with a fresh one-logit head, binary cross-entropy (positives
weighed as much as negatives when ``balance``), by the fine-tuning every model here shares
(:func:`~kgp_kedro.training.optim.fit`); and its AUC within each question on held-out pairs.
EWEK-QA's reranker is trained this way on its quotes (:mod:`kgp_kedro.ewek.training` builds the
pairs, ``ewek.training`` holds the parameters)."""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from kgp_kedro.models.cross_encoders import pair_scores

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


def train_cross_encoder(pairs: TrainingPairs, params):
    """``(cross_encoder, seconds)``: the base model with a new head, trained on ``pairs``
    by the fine-tuning every model here shares (:func:`~kgp_kedro.training.optim.fit`: AdamW,
    linear warm-up and decay, gradient norm clipped to 1), in eval mode. Seeded: the
    same pairs and parameters give the same weights on one device. ``params``: the model's
    ``base_model``, ``device``, ``max_length``, ``balance``, and what ``fit`` reads (EWEK-QA's:
    :class:`kgp_kedro.ewek.params.TrainingParams`)."""
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
    if len(set(pairs.labels)) < 2:
        return math.nan
    return question_auc(pairs, pair_scores(cross_encoder, list(zip(pairs.questions, pairs.quotes)),
                                           batch_size))
