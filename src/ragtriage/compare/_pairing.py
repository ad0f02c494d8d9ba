"""Pairing: one metric's per-question values of two groups of runs, question by question."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..evaluation import RunEvaluation
from ..metrics import Measure, exact_sum
from ._stats import FloatArray, PairedSample, group_means

TOLERANCE = 1e-9
"""Per-question values closer than this count as unchanged (floating-point noise)."""


@dataclass(frozen=True)
class GroupValues:
    """One measure's per-question numerators and denominators for a group of repeats.

    Shape (questions, repeats); NaN where a repeat has no value. A macro metric stores
    the per-question value over a denominator of 1.
    """

    question_ids: tuple[str, ...]
    """Questions, in evaluation-set order."""
    num: FloatArray
    """Numerators."""
    den: FloatArray
    """Denominators."""

    def values(self) -> list[float | None]:
        """Each question's value pooled over its repeats (None when no repeat has one)."""
        present = ~np.isnan(self.num)
        some: list[bool] = np.asarray(present.any(axis=1)).tolist()
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.num.shape[1] >= 8:  # numpy sums 8 or more values pairwise: row by row
                return [
                    float(n[p].sum() / d[p].sum()) if s else None
                    for n, d, p, s in zip(self.num, self.den, present, some, strict=True)
                ]
            # Below 8 numpy adds one by one from 0.0, so 0.0 in the gaps changes no sum.
            num = np.where(present, self.num, 0.0).sum(axis=1)
            den = np.where(present, self.den, 0.0).sum(axis=1)
            ratio: list[float] = (num / den).tolist()
        return [v if s else None for v, s in zip(ratio, some, strict=True)]


def pooled(num: FloatArray, den: FloatArray) -> float:
    """A group's value over questions that each have one: repeats averaged per question
    (`group_means`), then summed as `metrics.aggregate` sums, so that a single run gives
    exactly `evaluate`'s value over the same questions."""
    mean_num, mean_den = group_means(num, den)
    return exact_sum(mean_num) / exact_sum(mean_den)


def overall(values: GroupValues) -> float | None:
    """The aggregate over every question with a value (`pooled`, as the paired value is);
    None when no question has one."""
    present = ~np.isnan(values.num).all(axis=1)
    return pooled(values.num[present], values.den[present]) if present.any() else None


def group_question_ids(
    runs: Sequence[RunEvaluation], order: Callable[[], Sequence[str]]
) -> tuple[str, ...]:
    """The questions some repeat of a group has a result for, in evaluation-set order.

    A run lists the questions it has a result for (the others are its `no_result`), so a
    group's are the union of its repeats', whatever their order. `order()` gives every
    question ID in evaluation-set order; it is called only when no one repeat has them all,
    as it may read the evaluation set's questions again.
    """
    scored = [tuple(rec.question_id for rec in run.questions) for run in runs]
    widest = max(scored, key=len)
    union = set().union(*scored)
    if len(widest) == len(union):
        return widest
    rank = {qid: at for at, qid in enumerate(order())}
    return tuple(sorted(union, key=lambda qid: (rank.get(qid, len(rank)), qid)))


def group_values(
    runs: Sequence[RunEvaluation], measure: Measure, ids: tuple[str, ...]
) -> GroupValues:
    """Collect a measure's per-question scores on `ids` (`group_question_ids`) from each run
    of a group."""
    num = np.full((len(ids), len(runs)), np.nan)
    den = np.full((len(ids), len(runs)), np.nan)
    micro = measure.spec.averaging == "micro"
    for col, run in enumerate(runs):
        by_id = {rec.question_id: rec for rec in run.questions}
        for row, qid in enumerate(ids):
            rec = by_id.get(qid)
            score = None if rec is None else rec.scores.get(measure.name)
            if score is None:
                continue
            num[row, col] = score.numerator if micro else score.value
            den[row, col] = score.denominator if micro else 1.0
    return GroupValues(ids, num, den)


@dataclass(frozen=True)
class Paired:
    """The questions where both groups have a value, as arrays for the statistics."""

    question_ids: tuple[str, ...]
    """Paired questions, in base order."""
    sample: PairedSample
    """Their values."""
    unpaired: int
    """Questions of either group with a value on one side only or on neither."""


def pair(base: GroupValues, candidate: GroupValues) -> Paired:
    """Keep the questions (by ID) on which both groups have at least one value."""
    has_c: list[bool] = np.asarray(~np.isnan(candidate.num).all(axis=1)).tolist()
    cand_rows = {qid: i for i, qid in enumerate(candidate.question_ids) if has_c[i]}
    has_b: list[bool] = np.asarray(~np.isnan(base.num).all(axis=1)).tolist()
    rows_b: list[int] = []
    rows_c: list[int] = []
    for i, qid in enumerate(base.question_ids):
        j = cand_rows.get(qid)
        if j is not None and has_b[i]:
            rows_b.append(i)
            rows_c.append(j)
    every = set(base.question_ids) | set(candidate.question_ids)
    sample = PairedSample(
        base.num[rows_b], base.den[rows_b], candidate.num[rows_c], candidate.den[rows_c]
    )
    ids = tuple(base.question_ids[i] for i in rows_b)
    return Paired(ids, sample, len(every) - len(ids))


def change_status(direction: str, base: float | None, candidate: float | None) -> str:
    """`improved`, `regressed` or `unchanged` for one value; `not_paired` / `not_applicable`."""
    if base is None and candidate is None:
        return "not_applicable"
    if base is None or candidate is None:
        return "not_paired"
    delta = candidate - base
    if abs(delta) <= TOLERANCE:
        return "unchanged"
    better = delta > 0 if direction == "higher" else delta < 0
    return "improved" if better else "regressed"


def combine_statuses(statuses: Sequence[str]) -> str:
    """One status from several: `mixed` when some improved and some regressed."""
    better = "improved" in statuses
    worse = "regressed" in statuses
    if better and worse:
        return "mixed"
    if worse:
        return "regressed"
    if better:
        return "improved"
    if "unchanged" in statuses:
        return "unchanged"
    return "not_paired" if "not_paired" in statuses else "not_applicable"
