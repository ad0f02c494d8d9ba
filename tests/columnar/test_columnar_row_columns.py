"""`row_columns`: each row's values by name, read as one slice of each column when the rows
are consecutive `ColumnRow`s of one table (a run's records), row by row otherwise."""

from __future__ import annotations

from ragtriage.columnar import row_columns
from ragtriage.columnar._row_columns import ColumnRow


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
