"""Aggregation: macro = mean of per-question values; micro = pooled numerators / pooled
denominators. Questions without a value are counted as not applicable, never averaged in."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .measures import Score


@dataclass(frozen=True)
class Aggregate:
    """A measure over a set of questions (value None: not applicable everywhere)."""

    value: Fraction | float | None
    numerator: Fraction | float
    denominator: Fraction | float
    averaging: str
    not_applicable: int
    cannot_judge: int | None


def aggregate(
    scores: list[Score | None], averaging: str, cannot_judge: list[int] | None
) -> Aggregate:
    """Combine per-question scores; `cannot_judge`: per question, items left out."""
    present = [s for s in scores if s is not None]
    if averaging == "micro":
        num = exact_sum([s.numerator for s in present])
        den = exact_sum([s.denominator for s in present])
    else:
        num = exact_sum([s.value for s in present])
        den = Fraction(len(present))
    value = num / den if den else None
    left_out = None if cannot_judge is None else sum(cannot_judge)
    return Aggregate(value, num, den, averaging, len(scores) - len(present), left_out)


def exact_sum(values: list[Fraction | float]) -> Fraction | float:
    """The exact sum of fractions; with any float among them, a correctly rounded float."""
    if all(isinstance(v, Fraction) for v in values):
        return sum(values, Fraction(0))
    return math.fsum(float(v) for v in values)
