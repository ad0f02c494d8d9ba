"""Reading record files for the importers: a JSON array, JSONL, an object holding one list,
or CSV (a header row, then one record per row, every cell a string; `normalise` reads an
empty cell as an absent field, since CSV cannot tell an empty value from a missing one)."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path
from typing import Any

from ..errors import InputError, ProblemCollector, found_text
from ..fileio import (
    check_input,
    file_problem,
    parse_json,
    read_json,
    read_text,
    refuse_blank,
    text_lines,
)
from ..paths import PathArg, as_path, file_suffix

LIST_KEYS = ("samples", "test_cases", "goldens", "records", "data")
"""Keys under which a JSON object may hold the list of records."""


def read_records(path: PathArg, collector: ProblemCollector) -> list[tuple[str, Any]]:
    """Records with their location (`[3]` or `line 4`); every unreadable part becomes a problem."""
    path = as_path(path)
    label = str(path)
    try:
        if file_suffix(path) == ".parquet":  # a binary table: the decoder would blame UTF-8
            found = "a .parquet file (pandas writes JSON with to_json(orient='records'))"
            raise file_problem(label, "records in JSON, JSONL or CSV", found)
        if file_suffix(path) == ".jsonl":
            lines, unparsed = _json_lines(path, label, collector)
            if not lines and not unparsed:  # read to its end: blank lines, or no byte
                found = "only blank lines" if check_input(path, label) else "an empty file"
                raise file_problem(label, "at least one record", found)
            return lines
        if file_suffix(path) == ".csv":
            raw = read_text(path, label, what="a CSV file")
            refuse_blank(raw, label, "at least one record", "only blank lines")
            return _csv_records(raw, label, collector)
        data = read_json(path, label)
    except InputError as exc:
        collector.extend(exc.problems)
        return []
    if isinstance(data, dict):
        keys = [key for key in LIST_KEYS if isinstance(data.get(key), list)]
        present = [key for key in LIST_KEYS if key in data]
        if len(present) == 1 and not keys:
            # the one key holding something else: name it and what it holds
            key = present[0]
            collector.add(label, None, key, "a JSON array of records", found_text(data[key]))
            return []
        if len(keys) != 1:
            expected = f"a JSON array, or an object with one list under {', '.join(LIST_KEYS)}"
            collector.add(label, None, "(top level)", expected, found_text(sorted(data)))
            return []
        return [(f"{keys[0]}[{i}]", item) for i, item in enumerate(data[keys[0]])]
    if not isinstance(data, list):
        collector.add(label, None, "(top level)", "a JSON array of records", found_text(data))
        return []
    return [(f"[{i}]", item) for i, item in enumerate(data)]


def _json_lines(
    path: Path, label: str, collector: ProblemCollector
) -> tuple[list[tuple[str, Any]], bool]:
    """The records of the lines that parse, and whether a line did not: every such line is a
    problem, and the other records are checked on, as native JSONL files are."""
    lines, before = [], len(collector.problems)
    for number, text in text_lines(path, label, problems=collector):  # a line not UTF-8 too
        if text.strip():
            try:
                lines.append((f"line {number}", parse_json(text, label, number)))
            except InputError as exc:
                collector.extend(exc.problems)
    return lines, len(collector.problems) > before


_CSV_CELL_LIMIT = 1 << 30
"""Longest CSV cell accepted: the whole file is in memory already, and a retrieved context
can exceed the csv module's 128 KiB default."""


def _csv_records(raw: str, label: str, collector: ProblemCollector) -> list[tuple[str, Any]]:
    # The csv module's limit is process-wide state: raise it for this read only.
    previous = csv.field_size_limit(_CSV_CELL_LIMIT)
    try:
        return _csv_rows(raw, label, collector)
    finally:
        csv.field_size_limit(previous)


def _csv_rows(raw: str, label: str, collector: ProblemCollector) -> list[tuple[str, Any]]:
    rows = csv.reader(io.StringIO(raw, newline=""))
    try:
        header = next(rows, None)
        if header is None:
            return []
        columns: dict[str, list[int]] = {}
        for number, name in enumerate(header, start=1):
            columns.setdefault(name, []).append(number)
        repeated = {name: at for name, at in columns.items() if len(at) > 1}
        for name, at in repeated.items():
            # a record would keep one of the cells and drop the others unseen
            where = ", ".join(str(n) for n in at)
            collector.add(
                label, None, "header", "each column name once", f"{name!r} in columns {where}"
            )
        if repeated:
            return []
        records: list[tuple[str, Any]] = []
        for number, row in enumerate(rows, start=1):
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                where = f"row {number} (line {rows.line_num})"
                expected = f"{len(header)} cells, one per header column"
                collector.add(label, None, where, expected, f"{len(row)} cells")
                continue
            records.append((f"row {number}", dict(zip(header, row, strict=True))))
    except csv.Error as exc:
        collector.add(label, None, f"line {rows.line_num}", "valid CSV", str(exc))
        return []
    return records


def text_id(text: str) -> str:
    """A stable ID for a context known only by its text: `ctx-` and 12 hex digits of its SHA-256."""
    return "ctx-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
