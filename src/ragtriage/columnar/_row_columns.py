"""One run's per-row columns as its records and its result read them: the scores and
`cannot_judge` counts of the rows (`ColumnRow`, a row of them by measure name), the columns
the run's aggregates read, and the stages the stale measures found an old item in."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TypeVar, overload

import numpy as np

from ..metrics import Measure, PerQuestion, Score


class ScoreColumn(Sequence[Score | None]):
    """A measure's scores of a run's rows as each row's code among the few distinct scores
    (`distinct[codes[n]]`), kept so that a writer makes each distinct score's text once."""

    __slots__ = ("codes", "distinct")

    def __init__(self, codes: np.ndarray, distinct: list[Score | None]) -> None:
        self.codes, self.distinct = codes, distinct

    @overload
    def __getitem__(self, at: int) -> Score | None: ...
    @overload
    def __getitem__(self, at: slice) -> ScoreColumn: ...
    def __getitem__(self, at: int | slice) -> Score | ScoreColumn | None:
        if isinstance(at, slice):
            return ScoreColumn(self.codes[at], self.distinct)
        score: Score | None = self.distinct[self.codes[at]]
        return score

    def __len__(self) -> int:
        return len(self.codes)


def score_codes(scores: Sequence[Score | None]) -> tuple[np.ndarray, list[Score | None]]:
    """`(codes, distinct)`: each score's code among the distinct scores (a `ScoreColumn`'s
    own, else told apart by identity: the engine makes each distinct score once)."""
    if isinstance(scores, ScoreColumn):
        return scores.codes, scores.distinct
    keys = np.fromiter(map(id, scores), np.uintp, len(scores))
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return inverse, [scores[at] for at in first.tolist()]


def score_rows(
    scores: dict[str, PerQuestion], chosen: tuple[Measure, ...], rows: list[int]
) -> dict[str, tuple[ScoreColumn, list[int] | None, list[int] | None]]:
    """Per measure the arrays compute: the rows' scores, `cannot_judge` and `uncertain`
    counts."""
    out: dict[str, tuple[ScoreColumn, list[int] | None, list[int] | None]] = {}
    at = np.array(rows, dtype=np.int64)
    made: dict[tuple[float, float], Score] = {}  # a few distinct fractions: one object each
    for m in chosen:
        part = scores.get(m.name)
        if part is None:
            continue
        numerator, denominator = part.numerator[at], part.denominator[at]
        code, first = _distinct(numerator, denominator)
        # Each distinct pair's score made once (at its first row), each row given its code.
        pairs = zip(numerator[first].tolist(), denominator[first].tolist(), strict=True)
        distinct = [
            None if not pair[1] else made.get(pair) or made.setdefault(pair, Score(*pair))
            for pair in pairs
        ]
        left_out = None if part.cannot_judge is None else part.cannot_judge[at].tolist()
        uncertain = None if part.uncertain is None else part.uncertain[at].tolist()
        out[m.name] = (ScoreColumn(code, distinct), left_out, uncertain)
    return out


def _distinct(numerator: np.ndarray, denominator: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`(code, first)`: each row's (numerator, denominator) pair as its number among the
    distinct pairs, and the row where each distinct pair first occurs (pairs compared as
    numbers, as a dict of Python floats compares them: -0.0 is 0.0, NaN is no other)."""
    order = np.lexsort((denominator, numerator))  # stable: equal pairs in row order
    numerators, denominators = numerator[order], denominator[order]
    starts = np.ones(order.size, dtype=bool)
    starts[1:] = (numerators[1:] != numerators[:-1]) | (denominators[1:] != denominators[:-1])
    code = np.empty(order.size, dtype=np.int64)
    code[order] = np.cumsum(starts) - 1
    return code, order[starts]


def kept_columns(
    scores: dict[str, PerQuestion], chosen: tuple[Measure, ...], rows: list[int]
) -> dict[str, PerQuestion]:
    """Per measure, the rows' scores as the run's aggregates read them (in `rows` order; a
    question not applicable is 0 / 0, a measure reading `cannot_judge` labels has its
    counts)."""
    at = np.array(rows, dtype=np.int64)
    out: dict[str, PerQuestion] = {}
    for m in chosen:
        part = scores[m.name]
        denominator = np.asarray(part.denominator[at], dtype=np.float64)
        numerator = np.where(
            denominator != 0, np.asarray(part.numerator[at], dtype=np.float64), 0.0
        )
        left_out = None
        if m.spec.counts_cannot_judge:
            left_out = (
                np.zeros(at.size, dtype=np.int64) if part.cannot_judge is None
                else np.asarray(part.cannot_judge[at], dtype=np.int64)
            )
        out[m.name] = PerQuestion(numerator, denominator, left_out)
    return out


V = TypeVar("V")


class ColumnRow(Mapping[str, V]):
    """One question's values by measure name, a view of the run's columns (no dict per
    question): `QuestionRecord.scores` and `cannot_judge` of the rows the arrays score."""

    __slots__ = ("_at", "_table")

    def __init__(self, table: Mapping[str, Sequence[V]], at: int) -> None:
        self._table = table
        self._at = at

    def __getitem__(self, name: str) -> V:
        return self._table[name][self._at]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def __repr__(self) -> str:
        return repr(dict(self))


def row_columns(rows: Sequence[Mapping[str, V]], names: Sequence[str]) -> dict[str, Sequence[V]]:
    """Per name, each row's value: one slice of each column when the rows are consecutive
    `ColumnRow`s of one table (a run's records, as the engine makes them), else row by row."""
    first = rows[0] if rows else None
    if isinstance(first, ColumnRow):
        table, at = first._table, first._at
        if all(
            isinstance(row, ColumnRow) and row._table is table and row._at == n
            for n, row in enumerate(rows, at)
        ):
            return {name: table[name][at : at + len(rows)] for name in names}
    return {name: [row[name] for row in rows] for name in names}
