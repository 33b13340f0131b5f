"""HOLMES' answer metrics (§5.1): token precision and recall beside EM and F1, SQuAD-normalised,
against the best-matching gold answer (the one with the highest F1)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from kgp_kedro.evaluation.qa_metrics import _SPECIAL, normalize_answer


def precision_recall(prediction: str, golds: Sequence[str]) -> tuple[float, float]:
    """``(precision, recall)`` of the prediction's tokens against the gold answer with the
    highest token F1 (0, 0 for an empty prediction)."""
    best = (0.0, 0.0, 0.0)
    pred = normalize_answer(prediction).split()
    for gold in golds:
        ref = normalize_answer(gold).split()
        if (" ".join(pred) in _SPECIAL or " ".join(ref) in _SPECIAL) and pred != ref:
            continue   # HotpotQA's rule: yes/no scores only when it matches exactly
        common = sum((Counter(pred) & Counter(ref)).values())
        if not pred or not ref or not common:
            continue
        p, r = common / len(pred), common / len(ref)
        best = max(best, (2 * p * r / (p + r), p, r))
    return best[1], best[2]
