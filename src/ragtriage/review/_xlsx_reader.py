"""Reading an XLSX review sheet: its cells as text, and the problems of a sheet that would
read as something else than what it shows (merged cells, a formula without its saved
result)."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path
from xml.etree.ElementTree import iterparse

from .._optional import require_extra
from ..errors import Problem, shortened
from ..fileio import file_problem
from ._sheet_limits import SheetLimits, check_xlsx


def cell_text(value: object) -> str:
    """A cell's value as text: numbers typed by a reviewer come back without a spurious `.0`."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def column_name(header: Sequence[str], index: int) -> str:
    """A sheet column as a problem names it: its header, else `column N` (1-based)."""
    return header[index] if index < len(header) and header[index] else f"column {index + 1}"


def _unsaved_formulas(
    path: Path, title: str, values: list[list[object]], limits: SheetLimits
) -> list[Problem]:
    """A problem for every formula cell whose result the workbook does not hold (a
    sheet saved by a program that does not compute formulas): its value is unknown, not
    empty, so the row is not read as not filled yet."""
    require_extra("review", "reading a review sheet (.xlsx)")
    from openpyxl import load_workbook

    if not any(v is None for row in values for v in row):
        return []
    book = load_workbook(str(path), read_only=True, data_only=False)
    try:
        lines = book[title].iter_rows(
            max_row=limits.max_rows, max_col=limits.max_columns, values_only=True
        )
        header = [cell_text(v).strip() for v in values[0]] if values else []
        problems = [
            Problem(
                str(path), None,
                f"row {offset}: {column_name(header, index)}",
                "a value (a formula's result saved in the workbook)",
                f"the formula {shortened(formula)} without its result",
            )
            for offset, (row, saved) in enumerate(zip(lines, values, strict=False), start=1)
            for index, (formula, value) in enumerate(zip(row, saved, strict=False))
            if value is None and isinstance(formula, str) and formula.startswith("=")
        ]
    finally:
        book.close()
    return problems


def _merged_ranges(path: Path, member: str) -> list[Problem]:
    """A problem for every merged range of the worksheet `member` of the workbook: a merged
    range shows one value over several cells, and each cell but its first reads as blank (a
    verdict shown on two rows would be one row's, the other row not filled yet)."""
    expected = "no merged cells (unmerge them: each cell but the first of a range reads as blank)"
    problems = []
    # check_xlsx has refused a worksheet that is not well-formed or declares a document type.
    with zipfile.ZipFile(path) as book, book.open(member) as stream:
        for _, element in iterparse(stream):
            if element.tag.rsplit("}", 1)[-1] == "mergeCell":
                ref = element.get("ref", "")
                problems.append(Problem(str(path), None, f"cells {ref}", expected, f"{ref} merged"))
            element.clear()
    return problems


def read_xlsx(path: Path, limits: SheetLimits) -> tuple[list[list[str]], list[Problem]]:
    """The cells of the sheet named `review` (else the first) as text, and the problems of
    cells that do not read as what they show; a file that is no workbook raises `InputError`."""
    require_extra("review", "reading a review sheet (.xlsx)")
    check_xlsx(path, limits)
    from openpyxl import load_workbook

    try:
        book = load_workbook(str(path), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a file that is not a workbook
        found = f"{type(exc).__name__}: {exc}"
        raise file_problem(str(path), "an XLSX workbook", found) from exc
    try:
        sheet = book["review"] if "review" in book.sheetnames else book.worksheets[0]
        # check_xlsx bounded every position, so these bounds drop nothing and stop any padding.
        lines = sheet.iter_rows(
            max_row=limits.max_rows, max_col=limits.max_columns, values_only=True
        )
        cells: list[list[object]] = [list(row) for row in lines]
        title = sheet.title
        # Read-only worksheets do not parse merged ranges: they are read from the sheet's XML.
        member = sheet._worksheet_path
    finally:
        book.close()
    problems = _merged_ranges(path, member) + _unsaved_formulas(path, title, cells, limits)
    table = [[cell_text(v) for v in row] for row in cells]
    # Trailing empty cells and rows are padding (the bounds above), not content.
    for values in table:
        while values and values[-1] == "":
            values.pop()
    while table and not table[-1]:
        table.pop()
    return table, problems
