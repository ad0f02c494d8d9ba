"""Exact distribution functions for compare's statistics, without scipy at run time.

Two quantities are needed: the Student t quantile (for the expanded percentile interval)
and the two-sided binomial tail at p = 1/2 (for the exact McNemar test). Both are computed
to double precision; tests/compare/test_compare_exact.py checks them against scipy over the
whole range compare uses (relative error below 1e-12).

- t quantile: for up to `SERIES_DOF` degrees of freedom, Newton's method on the exact
  finite-series t distribution function for integer degrees of freedom (Abramowitz and
  Stegun 26.7.3-4); above, the asymptotic expansion in 1/dof of Hill (1970, Algorithm 396)
  to the fifth power, whose remainder is below 1e-13 there.
- binomial tail: exact rational arithmetic up to `EXACT_BINOMIAL_LIMIT` trials; above, the
  largest term from Loader's saddle-point formula (the one R's dbinom uses) times the
  ratio-recurrence sum of the smaller terms.
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

SERIES_DOF = 300
"""Up to this many degrees of freedom the t quantile inverts the exact finite series."""

EXACT_BINOMIAL_LIMIT = 1000
"""Up to this many trials the binomial tail is summed in exact rational arithmetic."""

_NORMAL = NormalDist()


def t_quantile(p: float, dof: int) -> float:
    """The p-quantile of Student's t distribution with `dof` (>= 1) degrees of freedom,
    for 0.5 <= p < 1 (the upper half is all the interval needs)."""
    if dof < 1 or not 0.5 <= p < 1.0:
        raise ValueError(f"t_quantile needs dof >= 1 and 0.5 <= p < 1, got dof={dof}, p={p}")
    if p == 0.5:
        return 0.0
    if dof == 1:
        return math.tan(math.pi * (p - 0.5))
    if dof == 2:
        return (2.0 * p - 1.0) / math.sqrt(2.0 * p * (1.0 - p))
    start = _hill_expansion(p, dof)
    if dof > SERIES_DOF:
        return start
    tail = 1.0 - p
    t = start
    for _ in range(100):
        step = (_upper_tail(t, dof) - tail) / _density(t, dof)
        # The distribution function is monotone; halve a step that would cross zero.
        t = t + step if t + step > 0 else t / 2.0
        if abs(step) <= 1e-15 * t:
            break
    return t


def _hill_expansion(p: float, dof: int) -> float:
    """Asymptotic expansion of the t quantile around the normal quantile, in powers of 1/dof."""
    z = _NORMAL.inv_cdf(p)
    z2 = z * z
    coefficients = (
        z,
        z * (z2 + 1) / 4,
        z * ((5 * z2 + 16) * z2 + 3) / 96,
        z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384,
        z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160,
        z * (((((27 * z2 + 339) * z2 + 930) * z2 - 1782) * z2 - 765) * z2 + 17955) / 368640,
    )
    return math.fsum(c / float(dof) ** k for k, c in enumerate(coefficients))


def _upper_tail(t: float, dof: int) -> float:
    """P(T > t) for t >= 0 from the finite series for integer degrees of freedom."""
    cos2 = dof / (dof + t * t)
    sin = t / math.sqrt(dof + t * t)
    terms = [1.0]
    if dof % 2:
        for k in range(1, (dof - 3) // 2 + 1):
            terms.append(terms[-1] * cos2 * (2 * k) / (2 * k + 1))
        theta = math.atan2(t, math.sqrt(dof))
        inside = (2.0 / math.pi) * (theta + sin * math.sqrt(cos2) * math.fsum(terms))
    else:
        for k in range(1, (dof - 2) // 2 + 1):
            terms.append(terms[-1] * cos2 * (2 * k - 1) / (2 * k))
        inside = sin * math.fsum(terms)
    return (1.0 - inside) / 2.0


def _density(t: float, dof: int) -> float:
    """Student t density (only steers Newton's steps; its rounding does not bias the root)."""
    log_norm = math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2) - 0.5 * math.log(dof * math.pi)
    return math.exp(log_norm - (dof + 1) / 2 * math.log1p(t * t / dof))


def binomial_two_sided(low: int, n: int) -> float:
    """2 * P(X <= low) for X ~ Binomial(n, 1/2), capped at 1 (`low` is the smaller count)."""
    if n == 0 or 2 * low >= n:
        return 1.0
    if n <= EXACT_BINOMIAL_LIMIT:
        tail = sum(math.comb(n, i) for i in range(low + 1))
        return min(1.0, float(Fraction(2 * tail, 2**n)))
    if low == 0:
        return math.ldexp(1.0, 1 - n)
    # Below `low` (< n/2) each term is a smaller fraction of the one before, so the sum of
    # the ratios to the largest term converges after a few multiples of sqrt(n) terms.
    parts = [1.0]
    for i in range(low, 0, -1):
        parts.append(parts[-1] * i / (n - i + 1))
        if parts[-1] < 1e-18:
            break
    return min(1.0, 2.0 * _half_binomial_pmf(low, n) * math.fsum(parts))


def _half_binomial_pmf(k: int, n: int) -> float:
    """P(X = k) for X ~ Binomial(n, 1/2), 0 < k < n, by Loader's saddle-point formula."""
    half = n / 2.0
    log_pmf = (
        _stirling_error(n)
        - _stirling_error(k)
        - _stirling_error(n - k)
        - _deviance(k, half)
        - _deviance(n - k, half)
    )
    return math.exp(log_pmf) * math.sqrt(n / (2.0 * math.pi * k * (n - k)))


def _stirling_error(n: int) -> float:
    """log(n!) - log(sqrt(2 pi n) (n/e)^n), the remainder of Stirling's formula."""
    if n <= 15:
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.5 * math.log(2 * math.pi)
    inv2 = 1.0 / (n * n)
    # Series 1/12n - 1/360n^3 + 1/1260n^5 - 1/1680n^7 + 1/1188n^9.
    return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - inv2 / 1188) * inv2) * inv2) * inv2) / n


def _deviance(x: float, mean: float) -> float:
    """x log(x / mean) + mean - x, without cancellation when x is close to mean."""
    if abs(x - mean) < 0.1 * (x + mean):
        v = (x - mean) / (x + mean)
        s = (x - mean) * v
        ej = 2 * x * v
        v2 = v * v
        j = 1
        while True:
            ej *= v2
            nxt = s + ej / (2 * j + 1)
            if nxt == s:
                return nxt
            s = nxt
            j += 1
    return x * math.log(x / mean) + mean - x
