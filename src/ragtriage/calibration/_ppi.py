"""Prediction-powered inference (PPI++) of a mean: judge predictions on every item, corrected
by the human-labelled subset, with a normal-approximation confidence interval.

With human labels Y on n items (the labelled set L) and judge predictions f on those and on N
items without a human label (the unlabelled set U)::

    estimate = mean_L(Y) + lam * (mean_U(f) - mean_L(f))
    variance = var_L(Y - lam * f) / n + lam**2 * var_U(f) / N     (sample variances, ddof 1)
    interval = estimate +- z(1 - alpha / 2) * sqrt(variance)

With lam = 1 this is the original PPI estimate, mean_U(f) + mean_L(Y - f): the judge's mean
minus the judge's bias measured on L. lam is power-tuned (Angelopoulos et al., "PPI++"):
lam = Cov_L(Y, f) / ((1 + n / N) * Var(f)), clipped to [0, 1], so a judge that tells little
about the human labels is down-weighted and the interval is never much wider than the
human-only one. The estimate is unbiased for the human-label mean whatever the judge, as long
as L is a random subset of the items. The estimate is a share: it is clipped to [0, 1], as
the interval's bounds are, so the interval always contains it (a judge far off on L can push
the uncorrected sum past 1). When fewer than two judged items lack a human label (N < 2: the
variance of f on U cannot be estimated) the estimate is the human mean with its classical
interval, and N is still reported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist, fmean, variance


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with a confidence interval; values are None when too few items exist."""

    estimate: float | None
    """The point estimate (clipped to [0, 1] for a share)."""
    low: float | None
    """Lower bound of the interval (clipped to [0, 1] for a share)."""
    high: float | None
    """Upper bound of the interval (clipped to [0, 1] for a share)."""
    confidence: float
    """Nominal coverage, e.g. 0.95."""
    n_labelled: int
    """Items with a human label (and a judge prediction)."""
    n_unlabelled: int
    """Items with only a judge prediction."""
    weight: float | None = None
    """The power-tuned weight of the judge's predictions (None for a human-only estimate)."""


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def classical_mean(values: Sequence[float], confidence: float = 0.95) -> MeanEstimate:
    """The plain mean of human labels with a normal-approximation interval."""
    n = len(values)
    if n < 2:
        return MeanEstimate(fmean(values) if n else None, None, None, confidence, n, 0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    mean = fmean(values)
    half = z * math.sqrt(variance(values) / n)
    return MeanEstimate(mean, _clip(mean - half), _clip(mean + half), confidence, n, 0)


def ppi_mean(
    labelled_truth: Sequence[float],
    labelled_pred: Sequence[float],
    unlabelled_pred: Sequence[float],
    confidence: float = 0.95,
) -> MeanEstimate:
    """The prediction-powered estimate of the mean of the truth (see the module docstring)."""
    if len(labelled_truth) != len(labelled_pred):
        raise ValueError("labelled truth and predictions must be paired (same length)")
    n, big_n = len(labelled_truth), len(unlabelled_pred)
    if big_n < 2:
        return replace(classical_mean(labelled_truth, confidence), n_unlabelled=big_n)
    if n < 2:
        return MeanEstimate(None, None, None, confidence, n, big_n)
    lam = power_tuning(labelled_truth, labelled_pred, unlabelled_pred)
    residual = [y - lam * f for y, f in zip(labelled_truth, labelled_pred, strict=True)]
    estimate = fmean(residual) + lam * fmean(unlabelled_pred)
    spread = math.sqrt(variance(residual) / n + lam * lam * variance(unlabelled_pred) / big_n)
    half = NormalDist().inv_cdf(0.5 + confidence / 2) * spread
    low, high = _clip(estimate - half), _clip(estimate + half)
    return MeanEstimate(_clip(estimate), low, high, confidence, n, big_n, lam)


def power_tuning(
    labelled_truth: Sequence[float],
    labelled_pred: Sequence[float],
    unlabelled_pred: Sequence[float],
) -> float:
    """The variance-minimising weight of the judge's predictions, clipped to [0, 1]."""
    n, big_n = len(labelled_truth), len(unlabelled_pred)
    spread = variance([*labelled_pred, *unlabelled_pred])
    if spread == 0.0:
        return 0.0  # a constant judge carries no information
    mean_y, mean_f = fmean(labelled_truth), fmean(labelled_pred)
    cov = sum(
        (y - mean_y) * (f - mean_f) for y, f in zip(labelled_truth, labelled_pred, strict=True)
    ) / (n - 1)
    return min(1.0, max(0.0, cov / ((1 + n / big_n) * spread)))
