"""Answer scoring: SQuAD-style normalised EM and token F1 over the gold answer and its aliases
(with HotpotQA's yes/no rule), HOLMES' token precision and recall, Hits@1 as "a gold answer is
contained in the prediction" (EWEK-QA's Hits@1, the ``hits1`` column), and the paper's Acc: its
LLM judge (Listing 5, the ``acc`` column)."""
from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)
_SPECIAL = {"yes", "no", "noanswer"}


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _golds(golds: str | Sequence[str]) -> list[str]:
    golds = [golds] if isinstance(golds, str) else list(golds)
    return [g for g in golds if g is not None and str(g).strip()]


def exact_match(prediction: str, golds: str | Sequence[str]) -> float:
    """1.0 when the normalised prediction equals a normalised gold answer or alias."""
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(g) for g in _golds(golds)))


def _token_scores(pred: str, gold: str) -> tuple[float, float, float]:
    """``(F1, precision, recall)`` of a normalised prediction's tokens against one normalised
    gold answer."""
    # HotpotQA's official rule: a yes/no answer scores only when it matches exactly
    if (pred in _SPECIAL or gold in _SPECIAL) and pred != gold:
        return 0.0, 0.0, 0.0
    pred_tokens, gold_tokens = pred.split(), gold.split()
    common = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if common == 0:
        return 0.0, 0.0, 0.0
    precision, recall = common / len(pred_tokens), common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall), precision, recall


def f1_score(prediction: str, golds: str | Sequence[str]) -> float:
    """Token F1 of the normalised prediction against the best gold answer or alias."""
    pred = normalize_answer(prediction)
    return max((_token_scores(pred, normalize_answer(g))[0] for g in _golds(golds)), default=0.0)


def precision_recall(prediction: str, golds: str | Sequence[str]) -> tuple[float, float]:
    """HOLMES' answer metrics (§5.1): ``(precision, recall)`` of the normalised prediction's
    tokens against the gold answer with the highest token F1 (0, 0 for an empty prediction)."""
    pred = normalize_answer(prediction)
    _, precision, recall = max((_token_scores(pred, normalize_answer(g)) for g in _golds(golds)),
                               default=(0.0, 0.0, 0.0))
    return precision, recall


def contains_answer(prediction: str, golds: str | Sequence[str]) -> float:
    """1.0 when a normalised gold answer occurs, as whole words, in the normalised prediction:
    EWEK-QA's Hits@1 (``hits1``). The paper's Acc (``acc``) is the LLM judge,
    :func:`judge_prompt`, not this."""
    pred = f" {normalize_answer(prediction)} "
    return float(any(f" {g} " in pred for g in map(normalize_answer, _golds(golds)) if g))


def parse_judgement(reply: str) -> float | None:
    """1.0 / 0.0 from the judge's reply (its first 0 or 1), None when it gave neither."""
    match = re.search(r"[01]", reply)
    return float(match.group()) if match else None
