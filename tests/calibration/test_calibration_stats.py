"""Agreement statistics against scikit-learn, and the PPI interval's coverage by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import (
    cohen_kappa_score,
    confusion_matrix as sk_confusion_matrix,
    precision_score,
    recall_score,
)

from ragtriage.calibration import (
    CLAIM_CATEGORIES,
    PREDICTION,
    agreement,
    classical_mean,
    cohen_kappa,
    confusion_matrix,
    ppi_mean,
)


def _labels(seed: int, n: int, flip: float) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    human = rng.choice(CLAIM_CATEGORIES, size=n, p=[0.6, 0.3, 0.1]).tolist()
    judge = [str(rng.choice(CLAIM_CATEGORIES)) if rng.random() < flip else h for h in human]
    return human, judge


@pytest.mark.parametrize(
    ("seed", "n", "flip"), [(0, 50, 0.3), (1, 200, 0.6), (2, 7, 0.5), (3, 500, 0.1)]
)
def test_kappa_and_confusion_matrix_match_sklearn(seed: int, n: int, flip: float) -> None:
    human, judge = _labels(seed, n, flip)
    ours = agreement("claim", human, judge)
    theirs = sk_confusion_matrix(human, judge, labels=list(CLAIM_CATEGORIES))
    assert [list(row) for row in ours.matrix] == theirs.tolist()
    assert ours.kappa == pytest.approx(
        cohen_kappa_score(human, judge, labels=list(CLAIM_CATEGORIES)), abs=1e-12
    )
    precision = precision_score(
        human, judge, labels=["supported"], average="micro", zero_division=np.nan
    )
    recall = recall_score(human, judge, labels=["supported"], average="micro", zero_division=np.nan)
    assert ours.precision.value == pytest.approx(precision, abs=1e-12)
    assert ours.recall.value == pytest.approx(recall, abs=1e-12)
    assert ours.agreement.value == pytest.approx(
        np.mean(np.array(human) == np.array(judge)), abs=1e-12
    )


def test_hand_computed_agreement() -> None:
    human = ["supported", "supported", "unsupported", "cannot_judge", "supported"]
    judge = ["supported", "unsupported", "unsupported", "supported", "cannot_judge"]
    got = agreement("claim", human, judge)
    assert got.matrix == ((1, 1, 1), (0, 1, 0), (1, 0, 0))
    assert (got.agreement.numerator, got.agreement.denominator) == (2, 5)
    # p_o = 0.4; p_e = (3*2 + 1*2 + 1*1) / 25 = 0.36; kappa = 0.04 / 0.64
    assert got.kappa == pytest.approx(0.0625)
    assert (got.precision.numerator, got.precision.denominator) == (1, 2)
    assert (got.recall.numerator, got.recall.denominator) == (1, 3)
    assert (got.judge_cannot_judge.numerator, got.human_cannot_judge.numerator) == (1, 1)


def test_undefined_kappa_and_empty_denominators_are_none() -> None:
    same = agreement("claim", ["supported"] * 3, ["supported"] * 3)
    assert same.kappa is None  # chance agreement is 1: kappa is 0/0
    assert cohen_kappa(((0, 0), (0, 0))) is None
    empty = agreement("fact", [], [])
    assert (empty.agreement.value, empty.precision.value, empty.recall.value, empty.kappa) == (
        None,
        None,
        None,
        None,
    )
    with pytest.raises(ValueError, match="paired"):
        confusion_matrix(["supported"], [], CLAIM_CATEGORIES)


def test_ppi_hand_computed() -> None:
    truth, pred, rest = [1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0, 1.0]
    got = ppi_mean(truth, pred, rest)
    # Cov_L(Y, f) = 0.5 / 3; Var(all f) = 2 / 7; n / N = 1  ->  lam = (1/6) / (2 * 2/7) = 7/24
    lam = 7 / 24
    assert got.weight == pytest.approx(lam)
    assert got.estimate == pytest.approx(0.5 + 0.5 * lam)
    residual = [1 - lam, 0.0, 1.0, 0.0]
    mean_r = sum(residual) / 4
    var_r = sum((r - mean_r) ** 2 for r in residual) / 3
    spread = math.sqrt(var_r / 4 + lam**2 * 0.25 / 4)
    assert got.low == pytest.approx(got.estimate - 1.959963984540054 * spread)
    assert got.high == pytest.approx(min(1.0, got.estimate + 1.959963984540054 * spread))
    assert (got.n_labelled, got.n_unlabelled) == (4, 4)
    constant = ppi_mean([1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0])
    assert (constant.weight, constant.estimate) == (0.0, pytest.approx(2 / 3))
    only_humans = ppi_mean([1.0, 0.0, 1.0, 1.0], [0.0] * 4, [])
    assert only_humans == classical_mean([1.0, 0.0, 1.0, 1.0])
    assert ppi_mean([1.0], [1.0], [1.0, 0.0]).estimate is None


def test_ppi_interval_covers_the_truth_in_at_least_93_percent_of_200_simulations() -> None:
    truth_share, n_labelled, n_unlabelled = 0.7, 150, 1500
    covered = 0
    widths_ppi, widths_human = [], []
    for seed in range(200):
        rng = np.random.default_rng(seed)
        size = n_labelled + n_unlabelled
        truth = (rng.random(size) < truth_share).astype(float)
        # A biased, noisy judge: misses 25% of supported claims, calls 10% of the rest
        # supported, and cannot judge 10% of everything.
        verdicts = np.where(
            truth == 1.0,
            np.where(rng.random(size) < 0.75, "supported", "unsupported"),
            np.where(rng.random(size) < 0.10, "supported", "unsupported"),
        )
        verdicts = np.where(rng.random(size) < 0.10, "cannot_judge", verdicts)
        pred = np.array([PREDICTION[v] for v in verdicts])
        est = ppi_mean(
            truth[:n_labelled].tolist(), pred[:n_labelled].tolist(), pred[n_labelled:].tolist()
        )
        assert est.low is not None and est.high is not None
        covered += est.low <= truth_share <= est.high
        human = classical_mean(truth[:n_labelled].tolist())
        assert human.low is not None and human.high is not None
        widths_ppi.append(est.high - est.low)
        widths_human.append(human.high - human.low)
    assert covered / 200 >= 0.93
    assert covered == 194  # pinned: the simulation is seeded
    # With a useful judge the corrected interval is narrower than the human-only one.
    assert float(np.mean(widths_ppi)) < float(np.mean(widths_human))


def test_the_ppi_estimate_is_a_share_inside_its_interval() -> None:
    # Three claims the judge cannot judge (0.5) that humans call supported, and 40 claims only
    # the judge labelled, all supported: the correction alone gives 0.375 + 1 = 1.375.
    got = ppi_mean([1.0, 1.0, 1.0, 0.0], [0.5, 0.5, 0.5, 0.0], [1.0] * 40)
    assert (got.estimate, got.low, got.high, got.weight) == (1.0, 1.0, 1.0, 1.0)
    low = ppi_mean([0.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.5, 1.0], [0.0] * 40)
    assert (low.estimate, low.low, low.high) == (0.0, 0.0, 0.0)


def test_one_unlabelled_claim_gives_the_human_estimate_as_none_does() -> None:
    # The judge's variance on the unlabelled claims needs two of them: with fewer, the
    # estimate is the human one, whose counts still show the claim the humans left.
    truth = [1.0, 0.0, 1.0]
    one = ppi_mean(truth, [1.0, 0.0, 1.0], [1.0])
    human = classical_mean(truth)
    assert (one.estimate, one.low, one.high, one.weight) == (
        human.estimate, human.low, human.high, None
    )
    assert (one.n_labelled, one.n_unlabelled) == (3, 1)
    assert ppi_mean(truth, [1.0, 0.0, 1.0], []) == human
