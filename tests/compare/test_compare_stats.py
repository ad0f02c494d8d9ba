"""Paired statistics against scipy/statsmodels on generated data, and interval coverage."""

from __future__ import annotations

import itertools
from random import Random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from stream_oracle import bootstrap_bounds
from two_level_oracle import (
    Repeats,
    expanded_interval,
    two_level_differences,
    two_level_variance,
)

from ragtriage import evaluate, load_dataset
from ragtriage.compare import (
    BootstrapCI,
    PairedSample,
    bootstrap_ci,
    ci_text,
    compare,
    comparison_json,
    mcnemar_exact,
    sign_flip_test,
)
from ragtriage.compare._stats import _picked_sums, exact_up_to, expanded_tail
from ragtriage.example import example_paths


def macro(base: np.ndarray, cand: np.ndarray) -> PairedSample:
    ones = np.ones((len(base), 1))
    return PairedSample(base[:, None], ones, cand[:, None], ones)


def _mean_diff(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.asarray(np.mean(x, axis=axis) - np.mean(y, axis=axis))


@pytest.mark.parametrize("n", [5, 9, 12])
def test_sign_flip_exact_matches_scipy_permutation_test(n: int) -> None:
    rng = np.random.default_rng(n)
    base = rng.random(n)
    cand = base + rng.normal(0.15, 0.3, n)
    ours = sign_flip_test(macro(base, cand), resamples=10_000, seed=0, label="m")
    ref = stats.permutation_test(
        (cand, base), _mean_diff, permutation_type="samples", n_resamples=np.inf, vectorized=True
    )
    assert ours.name == "sign_flip_exact"
    assert ours.resamples == 2**n
    assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_sign_flip_exact_ignores_tied_pairs_like_scipy() -> None:
    base = np.array([0.0, 0.5, 1.0, 1.0, 0.25, 0.75, 0.5])
    cand = np.array([1.0, 0.5, 1.0, 0.0, 0.75, 1.0, 0.5])  # three ties
    ours = sign_flip_test(macro(base, cand), resamples=10_000, seed=0, label="m")
    ref = stats.permutation_test(
        (cand, base), _mean_diff, permutation_type="samples", n_resamples=np.inf, vectorized=True
    )
    assert ours.resamples == 2**4
    assert ours.detail == "4 differing pairs, all sign patterns"
    assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_sign_flip_monte_carlo_agrees_with_scipy() -> None:
    rng = np.random.default_rng(11)
    base = rng.random(60)
    cand = base + rng.normal(0.05, 0.25, 60)
    ours = sign_flip_test(macro(base, cand), resamples=40_000, seed=3, label="m")
    ref = stats.permutation_test(
        (cand, base),
        _mean_diff,
        permutation_type="samples",
        n_resamples=40_000,
        vectorized=True,
        random_state=5,
    )
    assert ours.name == "sign_flip_monte_carlo"
    assert ours.resamples == 40_000
    assert abs(ours.p_value - ref.pvalue) < 0.01
    again = sign_flip_test(macro(base, cand), resamples=40_000, seed=3, label="m")
    assert again.p_value == ours.p_value


def test_the_test_is_exact_while_every_sign_pattern_fits_in_the_resamples_as_it_says() -> None:
    # Before, the methods text said "exact up to 16 differing questions" at any resamples,
    # though 17 are enumerated when the 2**17 patterns fit in the resamples.
    base = np.random.default_rng(17).random(17)
    sample = macro(base, base + 0.5)
    exact = sign_flip_test(sample, resamples=2**17, seed=0, label="m")
    sampled = sign_flip_test(sample, resamples=2**17 - 1, seed=0, label="m")
    assert (exact.name, exact.resamples, exact.p_value) == ("sign_flip_exact", 2**17, 2 / 2**17)
    assert (sampled.name, sampled.resamples) == ("sign_flip_monte_carlo", 2**17 - 1)
    assert [exact_up_to(r) for r in (100, 10_000, 2**17 - 1, 2**17, 1_000_000)] == [
        16, 16, 16, 17, 19
    ]
    paths = example_paths()
    evaluation = evaluate(load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs))


    def said(permutations: int) -> str:
        found = comparison_json(compare(evaluation, resamples=100, permutations=permutations))
        return str(found["settings"]["methods"]["continuous_test"]).split("): ")[1]

    assert [said(2**17 - 1), said(2**17)] == [
        "exact up to 16 differing questions, else Monte Carlo with 131071 resamples, seed 0; "
        "repeats averaged per question first",
        "exact up to 17 differing questions, else Monte Carlo with 131072 resamples, seed 0; "
        "repeats averaged per question first",
    ]


def test_micro_swap_test_matches_brute_force_enumeration() -> None:
    rng = np.random.default_rng(4)
    n = 8
    bn = rng.integers(0, 4, n).astype(float)
    bd = bn + rng.integers(1, 3, n).astype(float)
    cn = rng.integers(0, 4, n).astype(float)
    cd = cn + rng.integers(1, 3, n).astype(float)
    sample = PairedSample(bn[:, None], bd[:, None], cn[:, None], cd[:, None])
    observed = cn.sum() / cd.sum() - bn.sum() / bd.sum()
    extreme = 0
    for swaps in itertools.product([False, True], repeat=n):
        s = np.array(swaps)
        pc = np.where(s, bn, cn).sum() / np.where(s, bd, cd).sum()
        pb = np.where(s, cn, bn).sum() / np.where(s, cd, bd).sum()
        extreme += abs(pc - pb) >= abs(observed) - 1e-12
    ours = sign_flip_test(sample, resamples=1000, seed=0, label="micro")
    assert ours.p_value == pytest.approx(extreme / 2**n, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_mcnemar_exact_matches_statsmodels_and_binomtest(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 80))
    base = rng.random(n) < 0.5
    cand = np.where(rng.random(n) < 0.7, base, rng.random(n) < 0.6)
    table = [
        [int((base & cand).sum()), int((base & ~cand).sum())],
        [int((~base & cand).sum()), int((~base & ~cand).sum())],
    ]
    ours = mcnemar_exact(base, cand)
    b, c = table[0][1], table[1][0]
    assert ours.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-12)
    if b + c:
        assert ours.p_value == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, abs=1e-12)
    assert ours.detail == f"discordant pairs: {b} base only, {c} candidate only"


def test_mcnemar_exact_large_counts_use_log_space() -> None:
    base = np.array([True] * 700 + [False] * 640 + [True] * 10)
    cand = np.array([False] * 700 + [True] * 640 + [True] * 10)
    ours = mcnemar_exact(base, cand)
    ref = mcnemar([[10, 700], [640, 0]], exact=True).pvalue
    assert ours.p_value == pytest.approx(ref, rel=1e-12)


def test_mcnemar_without_discordant_pairs_is_one() -> None:
    same = np.array([True, False, True])
    assert mcnemar_exact(same, same).p_value == 1.0


def test_expanded_tail_uses_student_t() -> None:
    for n in (3, 10, 40):
        t = stats.t.ppf(0.975, n - 1)
        assert expanded_tail(0.95, n) == pytest.approx(
            stats.norm.cdf(-np.sqrt(n / (n - 1)) * t), abs=1e-15
        )
    assert expanded_tail(0.95, 2) == pytest.approx(0.025)


def test_bootstrap_is_seeded_and_labelled() -> None:
    rng = np.random.default_rng(1)
    base, cand = rng.random(30), rng.random(30)
    first = bootstrap_ci(macro(base, cand), resamples=500, seed=9, label="x")
    assert first == bootstrap_ci(macro(base, cand), resamples=500, seed=9, label="x")
    assert first != bootstrap_ci(macro(base, cand), resamples=500, seed=9, label="y")
    assert first.resamples == 500
    assert first.method == "paired expanded-percentile bootstrap over questions"


def test_bootstrap_ci_covers_true_difference_at_nominal_rate() -> None:
    """200 seeded simulations of 50 paired questions: the 95% interval covers >= 93%."""
    rng = np.random.default_rng(2026)
    truth = 0.05
    covered = 0
    for i in range(200):
        base = rng.beta(2, 3, 50)
        cand = base + rng.normal(truth, 0.25, 50)
        ci = bootstrap_ci(macro(base, cand), resamples=1000, seed=i, label="sim")
        covered += ci.low <= truth <= ci.high
    assert covered / 200 >= 0.93


def test_two_level_bootstrap_covers_with_repeat_noise() -> None:
    """Repeated runs: questions and repeats resampled; coverage >= 93% of 200 simulations."""
    rng = np.random.default_rng(7)
    truth = 0.1
    covered = 0
    for i in range(200):
        level = rng.normal(0.5, 0.2, 40)[:, None]
        base = level + rng.normal(0, 0.15, (40, 3))
        cand = level + truth + rng.normal(0, 0.1, (40, 1)) + rng.normal(0, 0.15, (40, 3))
        ones = np.ones((40, 3))
        ci = bootstrap_ci(PairedSample(base, ones, cand, ones), resamples=600, seed=i, label="rep")
        covered += ci.low <= truth <= ci.high
    assert covered / 200 >= 0.93


def _repeat_sample() -> tuple[PairedSample, list[Repeats], list[Repeats]]:
    """25 questions x 3 repeats where run-to-run noise dominates, with missing repeats."""
    rng = np.random.default_rng(3)
    level = rng.normal(0.5, 0.05, 25)[:, None]
    base = level + rng.normal(0, 0.3, (25, 3))
    cand = level + 0.05 + rng.normal(0, 0.3, (25, 3))
    base[0, 2] = np.nan
    cand[4, 1:] = np.nan
    ones = np.ones((25, 3))

    def rows(values: np.ndarray) -> list[Repeats]:
        return [[(float(v), 1.0) for v in row if not np.isnan(v)] for row in values]

    return PairedSample(base, ones, cand, ones), rows(base), rows(cand)


def test_oracle_matches_the_exact_two_level_variance() -> None:
    _, base, cand = _repeat_sample()
    values = two_level_differences(base, cand, resamples=8000, seed=1)
    assert np.std(values) == pytest.approx(two_level_variance(base, cand) ** 0.5, rel=0.03)


def test_two_level_bootstrap_agrees_with_the_plain_documented_method() -> None:
    """Different random streams (numpy vs Python's random): the endpoints agree within
    Monte Carlo error (~0.003 at 8000 resamples); reusing one repeat draw for every copy of
    a question (the former code) moved them by ~0.02 on this sample."""
    sample, base, cand = _repeat_sample()
    low, high = expanded_interval(
        two_level_differences(base, cand, resamples=8000, seed=1), 25, 0.95
    )
    ours = bootstrap_ci(sample, resamples=8000, seed=0, label="oracle")
    assert ours.low == pytest.approx(low, abs=0.008)
    assert ours.high == pytest.approx(high, abs=0.008)
    assert (low, high) == pytest.approx((-0.0592, 0.2455), abs=0.008)


def test_two_level_bootstrap_covers_when_repeat_noise_dominates() -> None:
    """Run-to-run noise twice the between-question spread, 5 repeats of 20 questions.

    The two-level interval counts repeat noise at both levels (it is already in the
    question means), so it errs on the wide side: 200 simulations give >= 95%."""
    rng = np.random.default_rng(11)
    truth = 0.1
    covered = 0
    for i in range(200):
        level = rng.normal(0.5, 0.05, 20)[:, None]
        base = level + rng.normal(0, 0.3, (20, 5))
        cand = level + truth + rng.normal(0, 0.1, (20, 1)) + rng.normal(0, 0.3, (20, 5))
        ones = np.ones((20, 5))
        ci = bootstrap_ci(PairedSample(base, ones, cand, ones), resamples=600, seed=i, label="n")
        covered += ci.low <= truth <= ci.high
    assert covered / 200 >= 0.95


def test_repeats_with_missing_values_resample_only_present_ones() -> None:
    base = np.array([[0.2, np.nan], [0.4, 0.6], [0.1, 0.3]])
    cand = np.array([[0.5, 0.7], [np.nan, 0.9], [0.2, 0.2]])
    ones = np.ones((3, 2))
    ci = bootstrap_ci(PairedSample(base, ones, cand, ones), resamples=400, seed=0, label="nan")
    assert np.isfinite(ci.low) and np.isfinite(ci.high)
    assert ci.method.endswith("repeats resampled within each drawn copy of a question")


@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=12),
    st.randoms(use_true_random=False),
)
@settings(max_examples=40, deadline=None)
def test_exact_tests_are_symmetric_and_order_free(
    pairs: list[tuple[int, int]], order: Random
) -> None:
    base = np.array([b / 4 for b, _ in pairs])
    cand = np.array([c / 4 for _, c in pairs])
    p = sign_flip_test(macro(base, cand), resamples=10_000, seed=0, label="p").p_value
    assert sign_flip_test(
        macro(cand, base), resamples=10_000, seed=0, label="p"
    ).p_value == pytest.approx(p)
    shuffled = list(range(len(pairs)))
    order.shuffle(shuffled)
    again = sign_flip_test(
        macro(base[shuffled], cand[shuffled]), resamples=10_000, seed=0, label="p"
    )
    assert again.p_value == pytest.approx(p)
    assert (
        mcnemar_exact(base > 0.5, cand > 0.5).p_value
        == mcnemar_exact(cand > 0.5, base > 0.5).p_value
    )
    ci = bootstrap_ci(macro(base, cand), resamples=200, seed=1, label="s")
    flipped = bootstrap_ci(macro(cand, base), resamples=200, seed=1, label="s")
    assert (ci is None, flipped is None) == (len(pairs) < 2,) * 2  # one question: no interval
    if ci is not None and flipped is not None:
        assert flipped.low == pytest.approx(-ci.high)
        assert flipped.high == pytest.approx(-ci.low)


def test_an_interval_is_written_once_for_every_renderer() -> None:
    # Before: the table and the HTML page each wrote `[{low:+.3f}, {high:+.3f}]` themselves.
    ci = BootstrapCI(-0.1, 0.25, 0.95, 2000, "paired percentile bootstrap")
    assert (ci_text(ci), ci_text(None)) == ("[-0.100, +0.250]", "n/a")


def _sample_with_gaps(
    seed: int, questions: int, widths: tuple[int, int], *, micro: bool, gaps: bool
) -> PairedSample:
    """Random paired values; with `gaps`, some repeats have no value (never a whole row)."""
    rng = np.random.default_rng(seed)
    sides = []
    for width in widths:
        shape = (questions, width)
        den = rng.integers(1, 6, shape).astype(np.float64) if micro else None
        num = rng.integers(0, 6, shape) * 1.0 if micro else rng.random(shape)
        if den is not None:
            num = np.minimum(num, den)
        if gaps and width > 1:
            holes = rng.random((questions, width)) < 0.3
            holes[:, 0] = False
            num[holes] = np.nan
            if den is not None:
                den[holes] = np.nan
        sides.append((num, den if den is not None else np.ones_like(num)))
    (bn, bd), (cn, cd) = sides
    return PairedSample(bn, bd, cn, cd)


@pytest.mark.parametrize(
    ("widths", "questions", "resamples"),
    [((1, 1), 40, 300), ((2, 2), 60, 400), ((3, 2), 30, 500), ((4, 4), 300, 1200),
     ((7, 5), 25, 300), ((9, 8), 20, 200)],
)
@pytest.mark.parametrize("micro", [False, True])
@pytest.mark.parametrize("gaps", [False, True])
def test_bootstrap_equals_the_first_implementation_bit_for_bit(
    widths: tuple[int, int], questions: int, resamples: int, micro: bool, gaps: bool
) -> None:
    """Same seeded draws, restructured arithmetic: the same interval, to the last bit, over
    macro and micro values, 1 to 9 repeats, missing repeats and several batches."""
    for seed in range(4):
        sample = _sample_with_gaps(seed, questions, widths, micro=micro, gaps=gaps)
        ci = bootstrap_ci(sample, resamples=resamples, seed=seed, label=f"s{seed}")
        assert ci is not None
        want = bootstrap_bounds(sample, resamples=resamples, seed=seed, label=f"s{seed}")
        assert (ci.low, ci.high) == want


@pytest.mark.parametrize(
    "values",
    [[0.0, 1.0], [0.0, 255.0, 7.0], [0.0, 256.0, 3.0], [-1.0, 2.0], [0.5, 1.0], [np.inf, 1.0],
     [-0.0, 1.0]],
)
def test_picked_sums_equal_the_float_sums_bit_for_bit(values: list[float]) -> None:
    """Bytes or floats, each resample's sum of its picks is the float sum, to the last bit."""
    rng = np.random.default_rng(5)
    array = rng.choice(np.array(values), 3000)
    picks = rng.integers(0, 3000, (40, 3000))
    got = _picked_sums(array, picks)
    assert got.dtype == np.float64
    assert [repr(v) for v in got.tolist()] == [repr(v) for v in array[picks].sum(1).tolist()]
