"""Fine-tuning a bi-encoder on next-passage examples (:mod:`kgp_kedro.training.examples`):
sentence-transformers' MultipleNegativesRankingLoss over (query, positive, hard negatives),
every other example's passages of the batch being in-batch negatives (DPR, MDR). The shipped
MiniLM is the base model (the paper's DPR/MDR fine-tune RoBERTa-base, which does not install
offline here). Seeded: the same examples and parameters give the same weights on one device."""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from kgp_kedro.training.examples import Example, RankingCase
from kgp_kedro.training.optim import fit

logger = logging.getLogger(__name__)


def load_base(model: str, device: str, max_length: int):
    """The sentence-transformers model to fine-tune (offline MiniLM by default)."""
    from sentence_transformers import SentenceTransformer

    from kgp_kedro.models.encoders import resolve_model_path

    base = SentenceTransformer(resolve_model_path(model), device=device)
    base.max_seq_length = max_length
    return base


def features(model, texts: list[str]) -> dict:
    """The model's input features of ``texts`` on its device."""
    batch = model.preprocess(texts)
    return {k: v.to(model.device) if hasattr(v, "to") else v for k, v in batch.items()}


def train_encoder(examples: Sequence[Example], params, desc: str = "train encoder"):
    """``(model, seconds, losses)``: the base model of ``params`` (an
    :class:`~kgp_kedro.config.sections.EncoderTrainingParams`) fine-tuned on ``examples``
    (:func:`~kgp_kedro.training.optim.fit`), in eval mode; ``losses`` the
    loss of every step."""
    import torch
    from sentence_transformers.losses import MultipleNegativesRankingLoss

    from kgp_kedro.models.devices import resolve_device

    if not examples:
        raise ValueError("no training examples: the train sources give no reasoning path "
                         "(train.sources)")
    start = time.perf_counter()
    torch.manual_seed(params.seed)
    device = resolve_device(params.device)
    model = load_base(params.base_model, device, params.max_length)
    loss_fn = MultipleNegativesRankingLoss(model, scale=params.scale)

    def loss_of(batch):
        shared = min(len(e.negatives) for e in batch)   # negatives every example has
        columns = [[e.query for e in batch], [e.positive for e in batch],
                   *([e.negatives[j] for e in batch] for j in range(shared))]
        return loss_fn([features(model, c) for c in columns], None)

    losses = fit(model, examples, params, loss_of, desc)
    seconds = time.perf_counter() - start
    logger.info("%s: %d examples, %d epoch(s), %d steps on %s in %.1f s (loss %.3f -> %.3f)",
                desc, len(examples), params.epochs, len(losses), device, seconds, losses[0],
                losses[-1])
    return model, seconds, losses


def example_loss(model, examples: Sequence[Example], scale: float, batch_size: int) -> float:
    """Mean MultipleNegativesRankingLoss of ``model`` over ``examples`` in fixed batches (no
    gradient): the training objective, to compare models on the same examples."""
    import torch
    from sentence_transformers.losses import MultipleNegativesRankingLoss

    loss_fn = MultipleNegativesRankingLoss(model, scale=scale)
    was_training = model.training
    model.eval()
    values = []
    with torch.inference_mode():
        for begin in range(0, len(examples), batch_size):
            batch = examples[begin:begin + batch_size]
            shared = min(len(e.negatives) for e in batch)
            columns = [[e.query for e in batch], [e.positive for e in batch],
                       *([e.negatives[j] for e in batch] for j in range(shared))]
            values.append(float(loss_fn([features(model, c) for c in columns], None))
                          * len(batch))
    model.train(was_training)
    return sum(values) / max(1, len(examples))


def first_relevant_rank(scores: np.ndarray, relevant: Sequence[bool]) -> int:
    """The 1-based rank of the first relevant candidate by ``scores`` (ties: candidate
    order)."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    return int(np.argmax(np.asarray(relevant)[order])) + 1


def rank_summary(ranks: Sequence[int]) -> dict[str, float]:
    """``cases``, ``mrr`` (mean reciprocal rank) and ``recall@1`` / ``recall@5`` (the share
    of cases ranked within k) of the ranks of held-out cases."""
    if not len(ranks):
        return {"cases": 0, "mrr": math.nan, "recall@1": math.nan, "recall@5": math.nan}
    ranks = np.asarray(ranks)
    return {"cases": len(ranks), "mrr": float(np.mean(1.0 / ranks)),
            "recall@1": float(np.mean(ranks <= 1)), "recall@5": float(np.mean(ranks <= 5))}


def ranking_scores(encode: Callable[[Sequence[str]], np.ndarray],
                   cases: Sequence[RankingCase]) -> dict[str, float]:
    """Next-passage ranking of held-out cases by the cosine of ``encode``'d query and
    candidates (:func:`rank_summary`)."""
    if not cases:
        return rank_summary([])
    texts = list(dict.fromkeys([t for c in cases for t in (c.query, *c.candidates)]))
    vectors = np.asarray(encode(texts), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-12)
    row = {t: i for i, t in enumerate(texts)}
    return rank_summary([first_relevant_rank(vectors[[row[t] for t in c.candidates]]
                                             @ vectors[row[c.query]], c.relevant)
                         for c in cases])
