"""`row_columns`: each row's values by name, read as one slice of each column when the rows
are consecutive `ColumnRow`s of one table (a run's records), row by row otherwise."""

from __future__ import annotations

import pickle

import numpy as np

from ragtriage.columnar import row_columns, score_codes
from ragtriage.columnar._row_columns import ColumnRow, ScoreColumn
from ragtriage.metrics import Score


def test_consecutive_rows_of_one_table_are_read_as_slices() -> None:
    table = {"a": [1, 2, 3, 4], "b": ["w", "x", "y", "z"]}
    rows = [ColumnRow(table, at) for at in (1, 2, 3)]
    assert row_columns(rows, ["b", "a"]) == {"b": ["x", "y", "z"], "a": [2, 3, 4]}
    assert row_columns([], ["a"]) == {"a": []}


def test_other_rows_are_read_one_by_one() -> None:
    table = {"a": [0, 1, 2, 3]}
    other = {"a": [5, 6, 7, 8]}
    cases = {
        (1, 3): [ColumnRow(table, 1), ColumnRow(table, 3)],  # a gap
        (1, 0): [ColumnRow(table, 1), ColumnRow(table, 0)],  # out of order
        (0, 6): [ColumnRow(table, 0), ColumnRow(other, 1)],  # two tables
        (0, 9): [ColumnRow(table, 0), {"a": 9}],  # a plain mapping
        (9, 0): [{"a": 9}, ColumnRow(table, 0)],
    }
    for values, rows in cases.items():
        assert row_columns(rows, ["a"]) == {"a": list(values)}


def test_a_score_column_reads_each_rows_code_and_keeps_it_through_slices() -> None:
    half, one = Score(1, 2), Score(1, 1)
    column = ScoreColumn(np.array([1, 0, 2, 1]), [None, half, one])
    assert len(column) == 4
    assert list(column) == [half, None, one, half]
    assert column[-1] is half
    part = column[1:3]
    assert isinstance(part, ScoreColumn) and list(part) == [None, one]
    codes, distinct = score_codes(part)  # its own codes; the distinct scores are the column's
    assert codes.tolist() == [0, 2] and list(distinct) == [None, half, one]
    table = {"m": column}
    assert row_columns([ColumnRow(table, at) for at in (2, 3)], ["m"])["m"][0] is one
    again = pickle.loads(pickle.dumps(column))
    assert list(again) == [half, None, one, half]


def test_other_scores_are_coded_by_identity() -> None:
    half, equal_half = Score(1, 2), Score(1, 2)
    codes, distinct = score_codes([equal_half, None, half, equal_half])
    assert [distinct[c] for c in codes.tolist()] == [equal_half, None, half, equal_half]
    assert len(distinct) == 3  # two equal scores made apart are told apart
    assert distinct[codes[0]] is equal_half and distinct[codes[2]] is half
