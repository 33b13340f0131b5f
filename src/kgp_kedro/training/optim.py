"""The optimisation every fine-tuning here shares: AdamW (weight decay 0.01) with a linear
warm-up over ``warmup_ratio`` of the steps and a linear decay to 0, the gradient norm clipped
to 1, over seeded shuffled batches, with a progress bar; after each step the memory the step
freed goes back to the system (:func:`~kgp_kedro.plumbing.memory.release_free_memory`)."""
from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kgp_kedro.plumbing.memory import release_free_memory
from kgp_kedro.plumbing.progress import Progress

logger = logging.getLogger(__name__)


def fit(model, examples: Sequence[Any], params, loss_of: Callable[[list[Any]], Any],
        desc: str) -> list[float]:
    """Train ``model`` on ``examples`` for ``params.epochs`` epochs of ``params.batch_size``
    (``params``: learning_rate, warmup_ratio, seed, threads too), ``loss_of`` a batch giving its loss
    tensor; the loss of every step. The model is left in eval mode."""
    import torch

    from kgp_kedro.models.devices import torch_threads

    total = math.ceil(len(examples) / params.batch_size) * params.epochs
    adamw = torch.optim.AdamW(model.parameters(), lr=params.learning_rate, weight_decay=0.01)
    warmup = max(1, int(params.warmup_ratio * total))
    schedule = torch.optim.lr_scheduler.LambdaLR(adamw, lambda step: min(
        (step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup))))
    rng = np.random.default_rng(params.seed)
    losses: list[float] = []
    model.train()
    with torch_threads(params.threads), Progress(desc, total, log=logger) as bar:
        for _ in range(params.epochs):
            order = rng.permutation(len(examples))
            for begin in range(0, len(order), params.batch_size):
                loss = loss_of([examples[i] for i in order[begin:begin + params.batch_size]])
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                adamw.step()
                schedule.step()
                adamw.zero_grad()
                losses.append(float(loss.item()))
                del loss
                release_free_memory()   # batches of other shapes: glibc kept each step's blocks
                bar.update()
    model.eval()
    return losses
