"""Paired statistics: bootstrap confidence intervals, sign-flip permutation and exact McNemar.

Every statistic here compares two systems on the same questions. A question contributes a
numerator and a denominator per system (a macro metric has denominator 1 and the
per-question value as numerator), so one code path serves macro and micro averages:

    difference = sum(cand_num) / sum(cand_den) - sum(base_num) / sum(base_den)

With repeated runs a question holds one row per repeat; the bootstrap then resamples
repeats inside each resampled question (two-level), so the run-to-run variance widens
the interval. All randomness comes from one seed; results are identical across calls.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ._exact import binomial_two_sided, t_quantile

FloatArray = NDArray[np.float64]

EXACT_LIMIT = 16
"""Up to this many non-tied pairs the permutation test enumerates all 2**n sign patterns
(and beyond, while 2**n is at most its resamples: `exact_up_to`)."""

CI_MIN_QUESTIONS = 2
"""Below this many paired questions there is no interval: one question is every resample,
so its interval would be a point that looks certain."""

_BATCH_CELLS = 4_000_000
"""Resamples are drawn in batches of at most this many array cells, to bound memory."""

_EPS = float(np.finfo(np.float64).eps) * 100


@dataclass(frozen=True)
class PairedSample:
    """One metric's values for two systems on the same (paired) questions.

    Arrays have shape (questions, repeats); NaN marks a repeat without a value. Every
    question has at least one value on each side (unpaired questions are left out before).
    """

    base_num: FloatArray
    """Base numerators."""
    base_den: FloatArray
    """Base denominators (1 for macro metrics)."""
    cand_num: FloatArray
    """Candidate numerators."""
    cand_den: FloatArray
    """Candidate denominators (1 for macro metrics)."""

    @property
    def size(self) -> int:
        """Number of paired questions."""
        return int(self.base_num.shape[0])

    @property
    def repeated(self) -> bool:
        """Whether either side has more than one repeat."""
        return bool(self.base_num.shape[1] > 1 or self.cand_num.shape[1] > 1)


@dataclass(frozen=True)
class BootstrapCI:
    """A paired percentile bootstrap interval for the difference candidate - base."""

    low: float
    """Lower bound."""
    high: float
    """Upper bound."""
    level: float
    """Confidence level (e.g. 0.95)."""
    resamples: int
    """Number of bootstrap resamples."""
    method: str
    """How it was computed, in words."""


@dataclass(frozen=True)
class TestResult:
    """A paired test of 'no difference'."""

    name: str
    """`mcnemar_exact`, `sign_flip_exact` or `sign_flip_monte_carlo`."""
    p_value: float
    """Two-sided p-value."""
    resamples: int | None
    """Monte Carlo resamples, or the number of enumerated patterns for an exact test."""
    detail: str
    """The statistic in words (discordant counts for McNemar)."""


def seeded_rng(seed: int, label: str) -> np.random.Generator:
    """A generator for one metric: same seed and label, same stream, whatever else is computed."""
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(label.encode())]))


def group_means(num: FloatArray, den: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Per-question numerator and denominator averaged over the repeats that have a value."""
    present = ~np.isnan(num)
    count = present.sum(axis=1)
    mean_num = np.where(present, num, 0.0).sum(axis=1) / count
    mean_den = np.where(present, den, 0.0).sum(axis=1) / count
    return mean_num, mean_den


def _compact(num: FloatArray, den: FloatArray) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
    """Move each row's values to the front (NaNs last) and count them, for in-row resampling."""
    order = np.argsort(np.isnan(num), axis=1, kind="stable")
    num_c = np.take_along_axis(num, order, axis=1)
    den_c = np.take_along_axis(den, order, axis=1)
    counts = (~np.isnan(num)).sum(axis=1).astype(np.int64)
    return np.nan_to_num(num_c), np.nan_to_num(den_c), counts


def _copy_draw(
    rng: np.random.Generator,
    num: FloatArray,
    den: FloatArray,
    counts: NDArray[np.int64],
    picks: NDArray[np.int64],
    unit: bool,
) -> tuple[FloatArray, FloatArray]:
    """Summed numerator and denominator of each resample's drawn questions, where every drawn
    copy of a question draws its own `count` repeats with replacement (the second level).

    `picks` has shape (resamples, questions); a question drawn twice in one resample gets two
    independent repeat draws, as the documented two-level bootstrap says. With `unit`
    denominators every copy's mean denominator is 1, and a resample's sum the questions.
    """
    width = num.shape[1]
    full = bool((counts == width).all())
    copies: NDArray[np.int64] | int = width if full else counts[picks]
    uniform = rng.random((*picks.shape, width))
    starts = picks * width
    slots_num: list[FloatArray] = []
    slots_den: list[FloatArray] = []
    # Slot by slot on (resamples, questions) arrays: summing a short last axis is slow.
    for slot in range(width):
        chosen = np.minimum((uniform[..., slot] * copies).astype(np.int64), np.subtract(copies, 1))
        cells = starts + chosen
        # A copy uses its first `count` slots.
        used = None if full or slot == 0 else np.greater(copies, slot)
        slots_num.append(_drawn(num, cells, used))
        if not unit:
            slots_den.append(_drawn(den, cells, used))
    draw_num = _slot_sum(slots_num) / copies
    if unit:
        return draw_num.sum(axis=1), _questions_drawn(picks)
    draw_den = _slot_sum(slots_den) / copies
    return draw_num.sum(axis=1), draw_den.sum(axis=1)


def _unit(num: FloatArray, den: FloatArray) -> bool:
    """Whether every value's denominator is 1 (a macro metric's), so that any resample's
    summed denominators are exactly its number of questions, in whatever order added."""
    return bool(((den == 1.0) | np.isnan(num)).all())


def _questions_drawn(picks: NDArray[np.int64]) -> FloatArray:
    """Each resample's number of drawn questions, as a float: a sum of 1s over `picks`."""
    return np.full(picks.shape[0], float(picks.shape[1]))


def _picked_sums(values: FloatArray, picks: NDArray[np.int64]) -> FloatArray:
    """Each resample's sum of its picked values. Whole numbers from 0 to 255 (a boolean's,
    most counts) are gathered as bytes, a fraction of the memory: their sums are exact in
    any order of adding, so equal the floats' to the last bit."""
    with np.errstate(invalid="ignore"):  # NaN and infinities cast to some byte
        small = values.astype(np.uint8)
    summed: FloatArray
    if np.array_equal(small, values):
        summed = small[picks].sum(axis=1).astype(np.float64)
    else:
        summed = values[picks].sum(axis=1)
    return summed


def _drawn(
    values: FloatArray, cells: NDArray[np.int64], used: NDArray[np.bool_] | None
) -> FloatArray:
    """The values at `cells`, 0 where a slot is not `used`."""
    found: FloatArray = values.ravel()[cells]
    return found if used is None else np.where(used, found, 0.0)


def _slot_sum(slots: list[FloatArray]) -> FloatArray:
    """The slots' sum, added in numpy's order for a last axis of this length: one by one below
    8 (its pairwise summation starts at 8), so results equal `.sum(axis=2)` bit for bit."""
    if len(slots) >= 8:
        summed: FloatArray = np.stack(slots, axis=2).sum(axis=2)
        return summed
    total = slots[0]
    for more in slots[1:]:
        total = total + more
    return total


def expanded_tail(level: float, n: int) -> float:
    """The lower percentile of an expanded percentile interval (Hesterberg 2015).

    The plain percentile interval is too narrow for small samples (it uses the normal
    quantile and the n-divisor variance); widening the percentiles to
    Phi(-sqrt(n / (n - 1)) * t[n-1]) corrects both. Plain percentiles below 3 questions:
    at 2, t[1] (12.7) would move the tails past every resample, to their extremes.
    """
    tail = (1.0 - level) / 2.0
    if n < 3:
        return tail
    spread = math.sqrt(n / (n - 1)) * t_quantile(1.0 - tail, n - 1)
    # Phi(-x) as erfc(x / sqrt 2) / 2: NormalDist.cdf's 1 + erf(...) loses digits in the tail.
    return 0.5 * math.erfc(spread / math.sqrt(2.0))


def bootstrap_ci(
    sample: PairedSample, *, resamples: int, seed: int, label: str, level: float = 0.95
) -> BootstrapCI | None:
    """Paired percentile bootstrap over questions (and over repeats within a question); None
    (not applicable) below `CI_MIN_QUESTIONS` questions."""
    if sample.size < CI_MIN_QUESTIONS:
        return None
    rng = seeded_rng(seed, "bootstrap:" + label)
    n = sample.size
    units = (_unit(sample.base_num, sample.base_den), _unit(sample.cand_num, sample.cand_den))
    if sample.repeated:
        base = _compact(sample.base_num, sample.base_den)
        cand = _compact(sample.cand_num, sample.cand_den)
        width = max(sample.base_num.shape[1], sample.cand_num.shape[1])
    else:
        bn, bd = sample.base_num[:, 0], sample.base_den[:, 0]
        cn, cd = sample.cand_num[:, 0], sample.cand_den[:, 0]
        width = 1
    # The two-level draw holds several (batch, questions, width) arrays at once.
    batch = max(1, _BATCH_CELLS // max(1, n * width * (4 if sample.repeated else 2)))
    stats: list[FloatArray] = []
    done = 0
    while done < resamples:
        size = min(batch, resamples - done)
        # Drawing indices and gathering is several times faster than multinomial weights.
        picks = rng.integers(0, n, (size, n))
        if sample.repeated:
            bn2, bd2 = _copy_draw(rng, *base, picks, units[0])
            cn2, cd2 = _copy_draw(rng, *cand, picks, units[1])
        else:
            bn2, cn2 = _picked_sums(bn, picks), _picked_sums(cn, picks)
            bd2 = _questions_drawn(picks) if units[0] else _picked_sums(bd, picks)
            cd2 = _questions_drawn(picks) if units[1] else _picked_sums(cd, picks)
        diff = cn2 / cd2 - bn2 / bd2
        stats.append(diff)
        done += size
    values = np.concatenate(stats)
    tail = expanded_tail(level, n)
    low, high = np.quantile(values, [tail, 1.0 - tail])
    method = "paired expanded-percentile bootstrap over questions"
    if sample.repeated:
        method += ", repeats resampled within each drawn copy of a question"
    return BootstrapCI(float(low), float(high), level, resamples, method)


def exact_up_to(resamples: int) -> int:
    """The most differing pairs the permutation test enumerates exactly: `EXACT_LIMIT`, or
    more while all 2**n sign patterns are no more than the Monte Carlo `resamples`."""
    return max(EXACT_LIMIT, resamples.bit_length() - 1)


def sign_flip_test(sample: PairedSample, *, resamples: int, seed: int, label: str) -> TestResult:
    """Paired permutation test: swap base and candidate per question (a sign flip of the
    per-question difference for macro metrics). Exact when few pairs differ, else Monte Carlo.

    Repeats are averaged per question first; the test asks whether the configurations'
    per-question means are exchangeable.
    """
    bn, bd = group_means(sample.base_num, sample.base_den)
    cn, cd = group_means(sample.cand_num, sample.cand_den)
    observed = float(cn.sum() / cd.sum() - bn.sum() / bd.sum())
    moving = (bn != cn) | (bd != cd)
    # Pairs whose swap changes nothing add the same term to every permuted statistic.
    fixed_num_c, fixed_den_c = cn[~moving].sum(), cd[~moving].sum()
    fixed_num_b, fixed_den_b = bn[~moving].sum(), bd[~moving].sum()
    bn, bd, cn, cd = bn[moving], bd[moving], cn[moving], cd[moving]
    n = int(moving.sum())
    tolerance = abs(observed) * _EPS
    if n == 0:
        return TestResult("sign_flip_exact", 1.0, 1, "no question differs")
    exact = n <= exact_up_to(resamples)
    if exact:
        codes = np.arange(2**n, dtype=np.int64)
        swaps = ((codes[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64)
        total = 2**n
    else:
        rng = seeded_rng(seed, "permutation:" + label)
        total = resamples
    extreme = 0
    shift = np.stack([bn - cn, bd - cd], axis=1)
    sum_c = (fixed_num_c + cn.sum(), fixed_den_c + cd.sum())
    sum_b = (fixed_num_b + bn.sum(), fixed_den_b + bd.sum())
    done = 0
    batch = max(1, _BATCH_CELLS // n)
    while done < total:
        size = min(batch, total - done)
        flips = swaps[done : done + size] if exact else _random_bits(rng, size, n)
        # Swapping a pair moves (base - candidate) from the candidate's sums to the base's.
        moved = flips @ shift
        num_c, den_c = sum_c[0] + moved[:, 0], sum_c[1] + moved[:, 1]
        num_b, den_b = sum_b[0] - moved[:, 0], sum_b[1] - moved[:, 1]
        permuted = num_c / den_c - num_b / den_b
        extreme += int((np.abs(permuted) >= abs(observed) - tolerance).sum())
        done += size
    if exact:
        p = extreme / total
        return TestResult(
            "sign_flip_exact", min(1.0, p), total, f"{n} differing pairs, all sign patterns"
        )
    p = (extreme + 1) / (total + 1)
    return TestResult("sign_flip_monte_carlo", min(1.0, p), total, f"{n} differing pairs")


def _random_bits(rng: np.random.Generator, rows: int, cols: int) -> FloatArray:
    """Fair 0/1 values from random bytes (several times faster than integers(0, 2))."""
    raw = np.frombuffer(rng.bytes((rows * cols + 7) // 8), dtype=np.uint8)
    return np.unpackbits(raw)[: rows * cols].reshape(rows, cols).astype(np.float64)


def mcnemar_exact(base: NDArray[np.bool_], cand: NDArray[np.bool_]) -> TestResult:
    """Exact McNemar test: a two-sided binomial test on the discordant pairs (p = 1/2)."""
    b = int((base & ~cand).sum())
    c = int((~base & cand).sum())
    p = binomial_two_sided(min(b, c), b + c)
    return TestResult(
        "mcnemar_exact", p, None, f"discordant pairs: {b} base only, {c} candidate only"
    )
