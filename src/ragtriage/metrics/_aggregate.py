"""Aggregation: per-question scores into one value with numerator, denominator and averaging.

`aggregate` is the one aggregation of the project: the engine (`columnar`) and `trec-eval`
(under each of its averaging rules) reach their aggregates through it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ._registry import Averaging, PerQuestion


@dataclass(frozen=True)
class Aggregate:
    """A metric over a set of questions; `value` is None when the denominator is empty."""

    metric: str
    """Canonical measure name."""
    value: float | None
    """numerator / denominator, or None (not applicable)."""
    numerator: float
    """Macro: sum of per-question values. Micro: pooled numerators."""
    denominator: float
    """Macro: questions with a value. Micro: pooled denominators."""
    averaging: Averaging
    """`macro` (over questions) or `micro` (over the pooled unit, e.g. claims)."""
    not_applicable: int
    """Questions in the set for which the metric was not applicable."""
    cannot_judge: int | None = None
    """Items (claims, facts) labelled `cannot_judge` and left out of the numerator and the
    denominator; None for a measure that reads no such label."""


def aggregate(metric: str, averaging: Averaging, scores: PerQuestion) -> Aggregate:
    """Combine per-question scores of one measure into its aggregate.

    A question whose denominator is 0 is not applicable: counted, never averaged in.
    `macro`: the mean of the per-question values; `micro`: pooled numerators over pooled
    denominators. Sums are exactly rounded (`math.fsum`), so the aggregate does not depend
    on question order or on how questions were split across processes. The items labelled
    `cannot_judge` are summed when the measure reads such labels.
    """
    mask = scores.applicable
    numerators = scores.numerator[mask]
    denominators = scores.denominator[mask]
    if averaging == "micro":
        num = exact_sum(numerators)
        den = exact_sum(denominators)
    else:
        num = exact_sum(numerators / denominators)
        den = float(numerators.size)
    value = num / den if den else None
    left_out = None if scores.cannot_judge is None else int(scores.cannot_judge.sum())
    missing = int(mask.size - numerators.size)
    return Aggregate(metric, value, _tidy(num), _tidy(den), averaging, missing, left_out)


_EXACT = 2.0**53
"""Every whole number of smaller magnitude is a float, so a sum of whole numbers whose
partial sums stay below it is exact in any order."""


_ALL_NEGATIVE_ZEROS = math.fsum([-0.0, -0.0])
"""fsum's sum of negative zeros (its sign differs between Python versions)."""


def exact_sum(values: np.ndarray) -> float:
    """`math.fsum` of a float array (the exactly rounded sum): numpy's sum where that is exact,
    whole numbers whose magnitudes add up to less than 2**53 (counts, 0/1 flags), else fsum.

    numpy adds in pairs, in another order than one by one; with whole numbers every partial
    sum is a whole number no larger than the sum of the magnitudes, so each is exact, and so
    is the result (rounding never lowers a sum of non-negative terms, so a computed sum of
    magnitudes below 2**53 means every partial sum was below it)."""
    whole = values.size and bool((values == np.trunc(values)).all())
    if whole and float(np.abs(values).sum()) < _EXACT:
        total = float(values.sum())
        if total or not np.signbit(values).all():
            return total + 0.0  # a zero sum of mixed signs is fsum's +0.0
        return _ALL_NEGATIVE_ZEROS
    return math.fsum(values.tolist())


def _tidy(number: float) -> float:
    """Whole numbers as ints in output (3 rather than 3.0); other values unchanged."""
    return int(number) if float(number).is_integer() else number


def not_applicable_everywhere(
    summaries: Sequence[Mapping[str, Aggregate]], names: Iterable[str]
) -> tuple[str, ...]:
    """The measures among `names` not applicable in every run (an empty denominator in each
    summary); none when there is no run."""
    if not summaries:
        return ()
    return tuple(n for n in names if all(s[n].value is None for s in summaries))


def not_applicable_line(names: Sequence[str]) -> str:
    """The one line a terminal table prints instead of a row per measure that applies nowhere."""
    return f"not applicable here: {', '.join(names)}"


def value_text(value: float | None, digits: int = 3, signed: bool = False) -> str:
    """A value as the reports print it, `0.833` (`+0.833` signed), or `n/a` where there is none."""
    return "n/a" if value is None else f"{value:{'+' if signed else ''}.{digits}f}"


def number_text(value: float) -> str:
    """A numerator or denominator as every report prints it: 3, 1.5, 0.333, 6.17, 1000.3
    (three significant digits, but every digit of the whole part and one decimal; never an
    exponent)."""
    if float(value).is_integer():
        return str(int(value))
    size = abs(value)
    whole = len(str(int(size))) if size >= 1 else math.floor(math.log10(size)) + 1
    return f"{value:.{max(1, 3 - whole)}f}".rstrip("0").rstrip(".")


def fraction_text(agg: Aggregate, between: str = "/") -> str:
    """`9.5/12`: an aggregate's numerator and denominator as every report writes them."""
    return f"{number_text(agg.numerator)}{between}{number_text(agg.denominator)}"
