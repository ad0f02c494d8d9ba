"""compare's own t quantile and binomial tail against scipy (and mpmath) over the range used.

compare needs no scipy at run time; these tests are the proof that its hand-written
distribution functions are exact to double precision where compare calls them:
degrees of freedom from 2 to any question count, confidence levels from 0.5 to 0.999,
and exact McNemar tests with any number of discordant pairs.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

from ragtriage.compare import mcnemar_exact
from ragtriage.compare._exact import SERIES_DOF, binomial_two_sided, t_quantile
from ragtriage.compare._stats import expanded_tail

LEVELS = [0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999]
DOFS = list(range(1, 2 * SERIES_DOF + 1)) + sorted(
    {int(v) for v in np.logspace(np.log10(2 * SERIES_DOF), 7, 60)}
)


@pytest.mark.parametrize("level", LEVELS)
def test_t_quantile_matches_scipy_to_1e12(level: float) -> None:
    p = 1.0 - (1.0 - level) / 2.0
    worst = max(abs(t_quantile(p, dof) - stats.t.ppf(p, dof)) / stats.t.ppf(p, dof) for dof in DOFS)
    assert worst < 1e-12


def test_t_quantile_at_random_probabilities() -> None:
    rng = np.random.default_rng(17)
    for p in rng.uniform(0.75, 0.9995, 40):
        for dof in (2, 3, 7, 30, SERIES_DOF, SERIES_DOF + 1, 5000):
            ref = stats.t.ppf(p, dof)
            assert abs(t_quantile(float(p), dof) - ref) <= 1e-12 * ref


def test_t_quantile_refuses_the_lower_half() -> None:
    with pytest.raises(ValueError, match=r"got dof=3, p=0.25"):
        t_quantile(0.25, 3)
    assert t_quantile(0.5, 3) == 0.0


@pytest.mark.parametrize("level", LEVELS)
def test_expanded_tail_matches_scipy_to_1e12(level: float) -> None:
    for n in [2, *range(3, 200), 1000, 10_000, 1_000_000]:
        tail = (1.0 - level) / 2.0
        if n < 3:
            ref = tail
        else:
            t = stats.t.ppf(1.0 - tail, n - 1)
            ref = stats.norm.cdf(-np.sqrt(n / (n - 1)) * t)
        # The tail is a percentile position: absolute agreement is what moves an endpoint.
        assert abs(expanded_tail(level, n) - ref) <= 1e-13


def test_binomial_tail_matches_binomtest_exhaustively_up_to_120_pairs() -> None:
    for n in range(0, 121):
        for low in range(0, n // 2 + 1):
            ref = stats.binomtest(low, n, 0.5).pvalue if n else 1.0
            assert binomial_two_sided(low, n) == pytest.approx(ref, rel=1e-12, abs=0.0)


def _exact_tail(low: int, n: int) -> float:
    """2 * P(X <= low) in integer arithmetic, summed until the terms are below 1e-30 of the
    total (far under a double's resolution)."""
    term = math.comb(n, low)
    total = term
    for i in range(low, 0, -1):
        term = term * i // (n - i + 1)
        total += term
        if term * 10**30 < total:
            break
    return min(1.0, float(Fraction(2 * total, 1 << n)))


@pytest.mark.parametrize("n", [500, 1000, 1001, 1500, 4000, 10_000, 50_000])
def test_binomial_tail_above_the_exact_limit_matches_integer_arithmetic(n: int) -> None:
    """Above 1000 pairs the saddle-point path runs (measured error <= 1.6e-13 relative)."""
    mean, sd = n // 2, int(n**0.5 / 2) + 1
    for low in sorted({0, 1, 7, mean - 30 * sd, mean - 6 * sd, mean - 2 * sd, mean - 1, mean}):
        if low < 0:
            continue
        ref = _exact_tail(low, n) if 2 * low < n else 1.0
        assert binomial_two_sided(low, n) == pytest.approx(ref, rel=1e-12, abs=0.0)


@pytest.mark.parametrize("n", [1_000_000, 10_000_000])
def test_binomial_tail_at_millions_of_pairs_matches_binomtest(n: int) -> None:
    """scipy itself drifts by ~1e-12 here (against integer arithmetic at 200,000 pairs:
    scipy 4.8e-13, ours 8.5e-14), hence the looser bound."""
    mean, sd = n // 2, int(n**0.5 / 2) + 1
    for low in (1, mean - 30 * sd, mean - 6 * sd, mean - 2 * sd, mean - 1):
        ref = stats.binomtest(low, n, 0.5).pvalue
        assert binomial_two_sided(low, n) == pytest.approx(ref, rel=5e-12, abs=0.0)


def test_mcnemar_exact_matches_statsmodels_at_large_counts() -> None:
    for b, c in [(700, 640), (5000, 5210), (2, 40_000)]:
        base = np.array([True] * b + [False] * c + [True] * 10)
        cand = np.array([False] * b + [True] * c + [True] * 10)
        ref = mcnemar([[10, b], [c, 0]], exact=True).pvalue
        assert mcnemar_exact(base, cand).p_value == pytest.approx(ref, rel=1e-11, abs=0.0)
