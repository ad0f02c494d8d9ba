"""Speed of the paired statistics of `ragtriage compare` against scipy, on generated data.

Run: python benchmarks/paired_tests.py [QUESTIONS]
Prints seconds per metric for our bootstrap interval and permutation test and for
scipy.stats.bootstrap / scipy.stats.permutation_test with the same resample counts,
and the two p-values (Monte Carlo, so they agree to about 0.01).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy import stats

from ragtriage.compare import PairedSample, bootstrap_ci, sign_flip_test


def main(questions: int) -> None:
    """Time both implementations once on one generated paired sample."""
    rng = np.random.default_rng(0)
    base = rng.random(questions)
    cand = base + rng.normal(0.002, 0.1, questions)
    ones = np.ones((questions, 1))
    sample = PairedSample(base[:, None], ones, cand[:, None], ones)

    def diff(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.asarray(np.mean(x, axis=axis) - np.mean(y, axis=axis))

    start = time.perf_counter()
    ci = bootstrap_ci(sample, resamples=5000, seed=0, label="bench")
    ours_ci = time.perf_counter() - start
    start = time.perf_counter()
    ref_ci = stats.bootstrap(
        (cand, base),
        diff,
        paired=True,
        n_resamples=5000,
        method="percentile",
        random_state=0,
        vectorized=True,
    )
    scipy_ci = time.perf_counter() - start
    start = time.perf_counter()
    test = sign_flip_test(sample, resamples=10000, seed=0, label="bench")
    ours_p = time.perf_counter() - start
    start = time.perf_counter()
    ref = stats.permutation_test(
        (cand, base),
        diff,
        permutation_type="samples",
        n_resamples=10000,
        random_state=0,
        vectorized=True,
    )
    scipy_p = time.perf_counter() - start
    print(f"questions: {questions}")
    print(
        f"bootstrap 5000:    ragtriage {ours_ci:6.2f} s [{ci.low:+.4f}, {ci.high:+.4f}]   "
        f"scipy {scipy_ci:6.2f} s [{ref_ci.confidence_interval.low:+.4f}, "
        f"{ref_ci.confidence_interval.high:+.4f}]"
    )
    print(
        f"permutation 10000: ragtriage {ours_p:6.2f} s p={test.p_value:.4f}   "
        f"scipy {scipy_p:6.2f} s p={ref.pvalue:.4f}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
