"""Percentile bootstrap over questions: the interval of a mean score, and of the ratio of two
methods' mean scores paired on the same resampled questions (F1 / Golden F1).

Every interval of one call rests on the same resamples: ``resample_indices(n, b, seed)`` draws
``b`` rows of ``n`` question indices with replacement, with ``numpy.random.default_rng(seed)``,
so a method's interval and its ratio to Golden use the same questions in every resample, and the
intervals do not depend on which other methods or sources were scored.
"""
from __future__ import annotations

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_CONFIDENCE = 0.95


def resample_indices(n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> np.ndarray:
    """``(n_resamples, n)`` indices into ``n`` questions, drawn with replacement."""
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


def resampled_means(values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The mean of ``values`` (``(n,)``, or ``(n, k)``: one column per method) over each
    resample: ``(n_resamples,)`` or ``(n_resamples, k)``. A NaN value (a question a method was
    not scored on) is left out of that method's mean; a resample with none left gives NaN."""
    values = np.asarray(values, dtype=float)
    column = values.ndim == 1
    values = values[:, None] if column else values
    n_resamples, n = indices.shape
    # how often each question is drawn in each resample, then one matrix product per method
    counts = np.bincount((indices + n * np.arange(n_resamples)[:, None]).ravel(),
                         minlength=n_resamples * n).reshape(n_resamples, n).astype(float)
    present = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (counts @ np.where(present, values, 0.0)) / (counts @ present)
    return means[:, 0] if column else means


def percentile_interval(samples: np.ndarray, confidence: float = DEFAULT_CONFIDENCE
                        ) -> tuple[np.ndarray, np.ndarray]:
    """The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of ``samples`` along
    axis 0 (linear interpolation, numpy's default); NaN where a sample is NaN."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    samples = np.asarray(samples, dtype=float)
    if samples.shape[0] == 0:
        nan = np.full(samples.shape[1:], np.nan)
        return nan, nan.copy()
    low, high = np.quantile(samples, [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
    return low, high


def mean_interval(values, n_resamples: int = DEFAULT_RESAMPLES,
                  confidence: float = DEFAULT_CONFIDENCE, seed: int = 0) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of ``values`` (one score per question);
    NaN for no values."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return np.nan, np.nan
    low, high = percentile_interval(
        resampled_means(values, resample_indices(len(values), n_resamples, seed)), confidence)
    return float(low), float(high)


def ratio_samples(numerator_means: np.ndarray, denominator_means: np.ndarray) -> np.ndarray:
    """Per resample, the ratio of two mean scores taken on the same resampled questions; NaN
    where the denominator's mean is 0 (the ratio is undefined on that resample)."""
    numerator_means = np.asarray(numerator_means, dtype=float)
    denominator_means = np.asarray(denominator_means, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = numerator_means / denominator_means
    return np.where(denominator_means == 0, np.nan, ratio)


def ratio_interval(numerator, denominator, n_resamples: int = DEFAULT_RESAMPLES,
                   confidence: float = DEFAULT_CONFIDENCE, seed: int = 0) -> tuple[float, float]:
    """The percentile bootstrap interval of ``mean(numerator) / mean(denominator)``, both
    given per question in the same order and resampled together (paired). NaN when the
    denominator's mean is 0 on some resample: the interval is then unbounded."""
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    if numerator.shape != denominator.shape:
        raise ValueError(f"paired scores differ in length: {numerator.shape} vs "
                         f"{denominator.shape}")
    if numerator.size == 0:
        return np.nan, np.nan
    means = resampled_means(np.column_stack([numerator, denominator]),
                            resample_indices(len(numerator), n_resamples, seed))
    low, high = percentile_interval(ratio_samples(means[:, 0], means[:, 1]), confidence)
    return float(low), float(high)
