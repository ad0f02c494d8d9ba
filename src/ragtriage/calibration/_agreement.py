"""Judge labels against human labels on the same items: agreement, kappa, confusion matrix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from ..schemas import ClaimVerdict, FactVerdict

ItemKind = Literal["claim", "fact"]

CLAIM_CATEGORIES: tuple[str, ...] = get_args(ClaimVerdict)
"""Claim verdicts, in confusion-matrix order."""
FACT_CATEGORIES: tuple[str, ...] = get_args(FactVerdict)
"""Fact verdicts, in confusion-matrix order."""
POSITIVE = {"claim": "supported", "fact": "covered"}
"""The verdict whose precision and recall are reported."""


@dataclass(frozen=True)
class Ratio:
    """A share with its parts; `value` is None for an empty denominator (not applicable)."""

    numerator: int
    """What counted."""
    denominator: int
    """Out of how many."""

    @property
    def value(self) -> float | None:
        """numerator / denominator, or None."""
        return self.numerator / self.denominator if self.denominator else None


@dataclass(frozen=True)
class Agreement:
    """How one judge's verdicts compare with human verdicts on the items both labelled."""

    kind: ItemKind
    """`claim` or `fact`."""
    categories: tuple[str, ...]
    """Verdicts in matrix order."""
    matrix: tuple[tuple[int, ...], ...]
    """Counts: rows are the human verdict, columns the judge verdict."""
    agreement: Ratio
    """Items where both gave the same verdict / paired items."""
    kappa: float | None
    """Cohen's kappa over the three verdicts; None when chance agreement is 1 (undefined)."""
    precision: Ratio
    """Of the items the judge called positive (supported/covered), how many humans did too."""
    recall: Ratio
    """Of the items humans called positive, how many the judge did too."""
    judge_cannot_judge: Ratio
    """Share of paired items the judge could not judge."""
    human_cannot_judge: Ratio
    """Share of paired items the humans could not judge."""

    @property
    def items(self) -> int:
        """Paired items."""
        return self.agreement.denominator


def confusion_matrix(
    human: Sequence[str], judge: Sequence[str], categories: Sequence[str]
) -> tuple[tuple[int, ...], ...]:
    """Counts of (human verdict, judge verdict) pairs, rows human, columns judge."""
    if len(human) != len(judge):
        raise ValueError("human and judge verdicts must be paired (same length)")
    index = {c: i for i, c in enumerate(categories)}
    counts = [[0] * len(categories) for _ in categories]
    for h, j in zip(human, judge, strict=True):
        counts[index[h]][index[j]] += 1
    return tuple(tuple(row) for row in counts)


def cohen_kappa(matrix: Sequence[Sequence[int]]) -> float | None:
    """Cohen's kappa from a square confusion matrix; None when it is undefined."""
    total = sum(sum(row) for row in matrix)
    if total == 0:
        return None
    observed = sum(matrix[i][i] for i in range(len(matrix))) / total
    rows = [sum(row) for row in matrix]
    cols = [sum(matrix[r][c] for r in range(len(matrix))) for c in range(len(matrix))]
    expected = sum(r * c for r, c in zip(rows, cols, strict=True)) / (total * total)
    if expected == 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def agreement(kind: ItemKind, human: Sequence[str], judge: Sequence[str]) -> Agreement:
    """Every agreement figure for paired verdicts of one item kind."""
    return from_matrix(kind, confusion_matrix(human, judge, categories_of(kind)))


def categories_of(kind: ItemKind) -> tuple[str, ...]:
    """The verdicts of one item kind, in confusion-matrix order."""
    return CLAIM_CATEGORIES if kind == "claim" else FACT_CATEGORIES


def from_matrix(kind: ItemKind, matrix: Sequence[Sequence[int]]) -> Agreement:
    """Every agreement figure of one item kind, from its confusion matrix (in
    `categories_of(kind)` order): each follows from the counts."""
    categories = categories_of(kind)
    n = sum(sum(row) for row in matrix)
    pos, unsure = categories.index(POSITIVE[kind]), categories.index("cannot_judge")
    return Agreement(
        kind=kind,
        categories=categories,
        matrix=tuple(tuple(row) for row in matrix),
        agreement=Ratio(sum(matrix[i][i] for i in range(len(matrix))), n),
        kappa=cohen_kappa(matrix),
        precision=Ratio(matrix[pos][pos], sum(row[pos] for row in matrix)),
        recall=Ratio(matrix[pos][pos], sum(matrix[pos])),
        judge_cannot_judge=Ratio(sum(row[unsure] for row in matrix), n),
        human_cannot_judge=Ratio(sum(matrix[unsure]), n),
    )
