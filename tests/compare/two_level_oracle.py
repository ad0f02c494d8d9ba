"""A plain, loop-by-loop implementation of the documented two-level bootstrap (the oracle).

It follows docs/compare-and-gate.md word for word and shares no code with
`ragtriage.compare`: each resample draws n questions with replacement, and every drawn
copy of a question draws that question's repeats with replacement, separately for the base
and the candidate. It uses Python's `random` module, so its stream differs from ours:
agreement with the vectorised code is distributional, not draw for draw.
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist, fmean

from scipy import stats

Repeats = list[tuple[float, float]]
"""One question's repeats on one side: (numerator, denominator) per repeat with a value."""


def two_level_differences(
    base: list[Repeats], cand: list[Repeats], *, resamples: int, seed: int
) -> list[float]:
    """The bootstrap distribution of candidate - base (pooled ratios of the drawn sums)."""
    rng = random.Random(seed)
    n = len(base)
    out = []
    for _ in range(resamples):
        sums = [0.0, 0.0, 0.0, 0.0]
        for _ in range(n):
            question = rng.randrange(n)
            for offset, side in ((0, base), (2, cand)):
                repeats = side[question]
                drawn = [repeats[rng.randrange(len(repeats))] for _ in repeats]
                sums[offset] += fmean(num for num, _ in drawn)
                sums[offset + 1] += fmean(den for _, den in drawn)
        out.append(sums[2] / sums[3] - sums[0] / sums[1])
    return out


def expanded_interval(values: list[float], n: int, level: float) -> tuple[float, float]:
    """Hesterberg's expanded percentile interval of a bootstrap distribution (scipy's t)."""
    tail = (1.0 - level) / 2.0
    if n >= 3:
        t = float(stats.t.ppf(1.0 - tail, n - 1))
        tail = NormalDist().cdf(-math.sqrt(n / (n - 1)) * t)
    ordered = sorted(values)
    return _quantile(ordered, tail), _quantile(ordered, 1.0 - tail)


def _quantile(ordered: list[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default rule)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def two_level_variance(base: list[Repeats], cand: list[Repeats]) -> float:
    """The exact variance of the two-level bootstrap difference for a macro metric
    (every denominator 1): the n-divisor variance of the per-question mean differences plus
    the mean over questions of each side's n-divisor repeat variance over its repeat count,
    all divided by n.
    """
    n = len(base)
    diffs = [
        fmean(c for c, _ in cq) - fmean(b for b, _ in bq) for bq, cq in zip(base, cand, strict=True)
    ]
    centre = fmean(diffs)
    between = fmean((d - centre) ** 2 for d in diffs)
    within = fmean(
        _repeat_variance(bq) + _repeat_variance(cq) for bq, cq in zip(base, cand, strict=True)
    )
    return (between + within) / n


def _repeat_variance(repeats: Repeats) -> float:
    """Variance of the mean of len(repeats) draws with replacement from the repeats."""
    values = [num for num, _ in repeats]
    centre = fmean(values)
    return fmean((v - centre) ** 2 for v in values) / len(values)
