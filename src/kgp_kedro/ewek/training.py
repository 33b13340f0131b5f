"""The reranker EWEK-QA needs, trained here: no cross-encoder weights install offline, so the
shipped MiniLM (all-MiniLM-L6-v2) gets a fresh one-logit head and is fine-tuned with binary
cross-entropy on (question, quote) pairs whose labels are the datasets' supporting facts: a
Paragraph Splitter quote is positive when it holds a supporting passage. Only questions that
are never read (not in ``qa_questions``) give pairs."""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from kgp_kedro.ewek.params import SplitterParams, TrainingParams
from kgp_kedro.ewek.quotes import collection_pages, paragraph_splitter

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainingPairs:
    questions: list[str]
    quotes: list[str]
    labels: list[float]
    n_questions: int

    def __len__(self) -> int:
        return len(self.labels)


def training_pairs(questions: pd.DataFrame, documents: pd.DataFrame, passages: pd.DataFrame,
                   exclude: Sequence[str], splitter: SplitterParams,
                   params: TrainingParams) -> TrainingPairs:
    """Labelled pairs from the collections of ``questions`` whose id is not in ``exclude``, in
    question order until ``params.max_pairs``: every quote holding a supporting passage, and
    ``negatives_per_positive`` other quotes of the same collection per positive (seeded)."""
    rng = np.random.default_rng(params.seed)
    supporting = set(passages.loc[passages["is_supporting"].astype(bool), "passage_id"])
    docs = dict(tuple(documents.groupby("collection_id", sort=False)))
    texts = dict(tuple(passages.groupby("collection_id", sort=False)))
    skip = set(exclude)
    qs, quotes, labels, used = [], [], [], 0
    for q in questions.itertuples(index=False):
        if q.question_id in skip or q.collection_id not in docs or q.collection_id not in texts:
            continue
        pool = [quote for page in collection_pages(docs[q.collection_id], texts[q.collection_id])
                for quote in paragraph_splitter(page, splitter.min_tokens, splitter.max_tokens)]
        positive = [p for p in pool if supporting & set(p.passage_ids)]
        negative = [p for p in pool if not supporting & set(p.passage_ids)]
        if not positive or not negative:
            continue
        take = min(len(negative), params.negatives_per_positive * len(positive))
        chosen = [negative[i] for i in sorted(rng.choice(len(negative), take, replace=False))]
        for quote, label in [(p, 1.0) for p in positive] + [(n, 0.0) for n in chosen]:
            qs.append(q.question)
            quotes.append(quote.text)
            labels.append(label)
        used += 1
        if len(labels) >= params.max_pairs:
            break
    n = min(len(labels), params.max_pairs)
    logger.info("cross-encoder training pairs: %d (%d positive) from %d questions not read",
                n, int(sum(labels[:n])), used)
    return TrainingPairs(qs[:n], quotes[:n], labels[:n], used)


def train_cross_encoder(pairs: TrainingPairs, params: TrainingParams):
    """``(cross_encoder, seconds)``: the base model with a new head, trained on ``pairs``
    (AdamW, linear warm-up and decay, gradient norm clipped to 1), in eval mode. Seeded: the
    same pairs and parameters give the same weights on one device."""
    import torch
    from sentence_transformers import CrossEncoder

    from kgp_kedro.models.devices import resolve_device
    from kgp_kedro.models.encoders import resolve_model_path

    if not len(pairs):
        raise ValueError("no training pairs: the questions not read have no collection with "
                         "both supporting and other quotes (raise the ingest limit, or set "
                         "ewek.rerank.cross_encoder to a trained model)")
    start = time.perf_counter()
    torch.manual_seed(params.seed)
    device = resolve_device(params.device)
    model = CrossEncoder(resolve_model_path(params.base_model), num_labels=1, device=device,
                         max_length=params.max_length)
    model.train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=params.learning_rate,
                                  weight_decay=0.01)
    per_epoch = math.ceil(len(pairs) / params.batch_size)
    total = per_epoch * params.epochs
    warmup = max(1, int(params.warmup_ratio * total))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: min(
        (step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup))))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    rng = np.random.default_rng(params.seed)
    labels = torch.tensor(pairs.labels, dtype=torch.float32)
    with tqdm(total=total, desc="train cross-encoder", leave=False, disable=None) as bar:
        for _ in range(params.epochs):
            order = rng.permutation(len(pairs))
            for begin in range(0, len(order), params.batch_size):
                batch = order[begin:begin + params.batch_size]
                features = model.preprocess([(pairs.questions[i], pairs.quotes[i])
                                             for i in batch])
                features = {k: v.to(model.device) if hasattr(v, "to") else v
                            for k, v in features.items()}
                logits = model(features)["scores"].view(-1)
                loss = loss_fn(logits, labels[batch].to(logits.device))
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimiser.step()
                schedule.step()
                optimiser.zero_grad()
                bar.update()
                bar.set_postfix(loss=f"{loss.item():.3f}")
    model.eval()
    seconds = time.perf_counter() - start
    logger.info("cross-encoder trained on %d pairs, %d epoch(s), on %s in %.1f s", len(pairs),
                params.epochs, device, seconds)
    return model, seconds
