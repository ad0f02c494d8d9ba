"""Aggregation: per-question scores into one value with numerator, denominator and averaging."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ._registry import Averaging, Measure, Score


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


def aggregate(
    measure: Measure, scores: Sequence[Score | None], cannot_judge: int | None = None
) -> Aggregate:
    """Combine per-question scores according to the measure's averaging kind.

    `cannot_judge`: the items labelled so and left out, summed over the same questions.
    """
    present = [s for s in scores if s is not None]
    missing = len(scores) - len(present)
    if measure.spec.averaging == "micro":
        num = math.fsum(s.numerator for s in present)
        den = math.fsum(s.denominator for s in present)
    else:
        num = math.fsum(s.value for s in present)
        den = float(len(present))
    value = num / den if den else None
    return Aggregate(
        measure.name, value, _tidy(num), _tidy(den), measure.spec.averaging, missing, cannot_judge
    )


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
