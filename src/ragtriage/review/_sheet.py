"""The review sheet's layout and its two file forms: CSV (UTF-8 with BOM) and XLSX."""

from __future__ import annotations

import csv
import datetime
import io
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, get_args

from .._optional import require_extra
from ..errors import InputError, Problem, counted, found_text
from ..fileio import OutputError, atomic_output, check_input, file_problem, read_text
from ..paths import PathArg, as_path, file_suffix
from ..schemas import ClaimVerdict, FactVerdict
from ._sheet_limits import SHEET_LIMITS, SheetLimits, check_cell, check_file_size
from ._xlsx_reader import column_name, read_xlsx

COLUMNS: tuple[str, ...] = (
    "row_kind",
    "run",
    "question_id",
    "question",
    "answer",
    "claim_id",
    "claim",
    "cited_ids",
    "context",
    "context_ids",
    "fact_id",
    "fact",
    "verdict",
    "supported_by",
    "reason",
    "reviewer",
    "context_hash",
)
"""Every column, in sheet order. Reviewers fill `verdict`, `supported_by`, `reason` (and may
put their name in `reviewer`); the other columns identify the item and must not be edited."""

FILL_COLUMNS = ("verdict", "supported_by", "reason", "reviewer")
"""The columns a reviewer fills."""

CLAIM_VERDICTS: tuple[str, ...] = get_args(ClaimVerdict)
"""Allowed verdicts on a claim row (the schema's)."""
FACT_VERDICTS: tuple[str, ...] = get_args(FactVerdict)
"""Allowed verdicts on a fact row (the schema's)."""

ID_SEPARATOR = ", "
"""How lists of IDs are written in one cell (read back by splitting on commas)."""

SHEET_SUFFIXES = (".csv", ".xlsx")
"""The file forms, chosen by suffix."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet program read a cell as a formula (OWASP's list
against CSV injection): a claim or question from the files read must be shown, never run."""

GUARD = "'"
"""Written before a cell's text that starts with one of `FORMULA_STARTS` or with `GUARD`
itself (`guarded`); the one removed on reading (`unguarded`)."""

_GUARDED = (*FORMULA_STARTS, GUARD)


def guarded(text: str) -> str:
    """A cell's text as written to either form of the sheet: `'=1+2` for `=1+2`.

    A spreadsheet shows the cell as text instead of running it. Text already starting with
    `'` is guarded too, so that `unguarded` gives back exactly what was written.
    """
    return GUARD + text if text.startswith(_GUARDED) else text


def unguarded(cell: str) -> str:
    """A cell's text as read: the one `'` `guarded` put before `=`, `+`, `-`, `@`, a tab, a
    carriage return or `'` is removed; any other cell is as it stands (a reviewer's `'quoted'`
    reason keeps its quote)."""
    return cell[1:] if cell[:1] == GUARD and cell[1:2] in _GUARDED else cell


@dataclass(frozen=True)
class SheetRow:
    """One row of a sheet as text cells, with its 1-based row number (the header is row 1)."""

    number: int
    """Row number as a spreadsheet shows it."""
    cells: dict[str, str]
    """Cell text by column name (missing cells are empty strings)."""

    def get(self, column: str) -> str:
        """A cell's text: stripped in a column the reviewer fills (`FILL_COLUMNS`: spaces
        typed around a verdict are no part of it), as exported in the others, which hold IDs
        that may start or end with a space (`Identifier` keeps it), so that the rows match
        exactly what was exported."""
        cell = self.cells.get(column, "")
        return cell.strip() if column in FILL_COLUMNS else cell


def split_ids(cell: str) -> list[str]:
    """IDs from a cell: comma-separated, blanks ignored, order kept, repeats dropped."""
    return list(dict.fromkeys(part.strip() for part in cell.split(",") if part.strip()))


def _check_suffix(path: Path, option: str) -> str:
    suffix = file_suffix(path)
    if suffix not in SHEET_SUFFIXES:
        found = repr(path.suffix or "no suffix")
        raise file_problem(str(path), "a .csv or .xlsx file", found, option)
    return suffix


def write_sheet(path: PathArg, rows: Sequence[dict[str, str]]) -> Path:
    """Write rows (dicts by column name) as CSV or XLSX, chosen by the file's suffix.

    Every cell is written `guarded` (`'=1+2` for `=1+2`): a spreadsheet program shows it as
    text, never runs it as a formula; `read_sheet` gives the rows back exactly.
    """
    path = as_path(path)
    suffix = _check_suffix(path, "--output")
    if suffix == ".csv":
        # The BOM makes spreadsheet programs read the UTF-8 (Chinese text) correctly.
        with atomic_output(path, "w", encoding="utf-8-sig", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(COLUMNS), lineterminator="\r\n")
            writer.writeheader()
            for row in rows:
                writer.writerow({c: guarded(row.get(c, "")) for c in COLUMNS})
        return path
    _write_xlsx(path, rows)
    return path


_NOT_IN_XLSX = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters an .xlsx cell cannot hold (XML 1.0 has no way to write them)."""


def _xlsx_refusal(rows: Sequence[dict[str, str]]) -> str | None:
    """Why `rows` cannot be written as .xlsx (the first such cell and how many there are)."""
    found = [
        (number, column, row.get("question_id", ""), match.group())
        for number, row in enumerate(rows, start=2)
        for column in COLUMNS
        if (match := _NOT_IN_XLSX.search(row.get(column, ""))) is not None
    ]
    if not found:
        return None
    number, column, question, char = found[0]
    more = f" (and {counted(len(found) - 1, 'more cell')})" if len(found) > 1 else ""
    return (
        f"row {number} (question {question!r}), column {column}, holds U+{ord(char):04X}, a "
        f"character an .xlsx sheet cannot hold{more}; write a .csv sheet instead"
    )


def _write_xlsx(path: Path, rows: Sequence[dict[str, str]]) -> None:
    require_extra("review", "writing a review sheet (.xlsx)")
    refused = _xlsx_refusal(rows)
    if refused is not None:
        raise OutputError(path, refused)
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.datavalidation import DataValidation

    book = Workbook()
    for default in list(book.worksheets):
        book.remove(default)
    sheet = book.create_sheet("review")
    sheet.append(list(COLUMNS))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    # openpyxl stores text starting with "=" as a formula; guarded text never does, so every
    # cell is a string cell (and stays text when a reviewer edits it in a spreadsheet).
    for row in rows:
        sheet.append([guarded(row.get(c, "")) for c in COLUMNS])
    wide = {"question": 40, "answer": 50, "claim": 40, "context": 70, "fact": 40, "reason": 30}
    for index, name in enumerate(COLUMNS, start=1):
        letter = get_column_letter(index)
        sheet.column_dimensions[letter].width = wide.get(name, 16)
        if name in wide:
            for (cell,) in sheet.iter_rows(min_row=2, min_col=index, max_col=index):
                cell.alignment = Alignment(wrap_text=True, vertical="top")
    choices = ",".join(dict.fromkeys((*CLAIM_VERDICTS, *FACT_VERDICTS)))
    check = DataValidation(type="list", formula1=f'"{choices}"', allow_blank=True)
    verdict_letter = get_column_letter(COLUMNS.index("verdict") + 1)
    check.add(f"{verdict_letter}2:{verdict_letter}{max(2, len(rows) + 1)}")
    sheet.add_data_validation(check)
    sheet.freeze_panes = "A2"
    book.properties.creator = XLSX_CREATOR
    book.properties.created = XLSX_TIME
    saved = io.BytesIO()
    book.save(saved)
    # Saving stamps `modified` with the clock: the document properties are written again
    # with the fixed time, in the archive rewritten with fixed entry dates.
    book.properties.modified = XLSX_TIME
    from openpyxl.xml.functions import tostring

    core = tostring(book.properties.to_tree())
    with atomic_output(path, "wb") as handle:
        _write_fixed_zip(saved.getvalue(), handle, {_XLSX_CORE: core})


XLSX_TIME = datetime.datetime(1980, 1, 1, 0, 0, 0)
"""The created and modified time of every .xlsx sheet (UTC): the same rows give the same
bytes, whenever they are written."""
XLSX_CREATOR = "ragtriage"
"""The creator of every .xlsx sheet."""
_XLSX_CORE = "docProps/core.xml"
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_ZIP_UNIX = 3
"""The system a ZIP entry is marked as made on (Unix), whatever system writes it."""


def _write_fixed_zip(archive: bytes, handle: IO[bytes], replaced: dict[str, bytes]) -> None:
    """`archive` rewritten into `handle`: the same entries in the same order and compression,
    each dated `_ZIP_TIME` and marked as made on Unix, with the entries of `replaced` given
    new contents."""
    with zipfile.ZipFile(io.BytesIO(archive)) as source, zipfile.ZipFile(handle, "w") as out:
        for entry in source.infolist():
            fixed = zipfile.ZipInfo(entry.filename, date_time=_ZIP_TIME)
            fixed.compress_type = entry.compress_type
            fixed.external_attr = entry.external_attr
            fixed.create_system = _ZIP_UNIX
            out.writestr(fixed, replaced.get(entry.filename, source.read(entry.filename)))


def _read_csv(path: Path, limits: SheetLimits) -> list[list[str]]:
    check_file_size(path, limits)
    table: list[list[str]] = []
    # The reader's own cell bound is raised to ours for this read only (it is process-wide).
    previous = csv.field_size_limit(limits.max_cell_chars)
    text = read_text(path, str(path), limits.max_file_bytes, "a sheet")
    # Spreadsheet programs in locales with a decimal comma save CSV with ';' between cells,
    # and some save it with tabs; the header, whose names hold none of them, says which.
    header = text.partition("\n")[0]
    delimiter = next((d for d in ",;\t" if d in header), ",")
    try:
        with io.StringIO(text, newline="") as handle:
            for values in csv.reader(handle, delimiter=delimiter):
                table.append(values)
                wide = len(values) > limits.max_columns
                if len(table) > limits.max_rows or wide:
                    expected = f"at most {limits.max_rows} rows and {limits.max_columns} columns"
                    rows = f"more than {limits.max_rows} rows"
                    found = f"{len(values)} columns" if wide else rows
                    raise file_problem(str(path), expected, found, f"row {len(table)}")
    except csv.Error as exc:
        found = str(exc)
        if "field larger than field limit" in found:
            found = f"a cell of more than {limits.max_cell_chars} characters (row {len(table) + 1})"
        raise file_problem(str(path), "valid CSV", found) from exc
    finally:
        csv.field_size_limit(previous)
    return table


def read_sheet(path: PathArg) -> tuple[tuple[str, ...], list[SheetRow]]:
    """The header and the non-empty rows of a CSV or XLSX sheet; unreadable files, and the
    problems of `sheet_with_problems`, are errors (every one at once).

    Each cell is read `unguarded`: a sheet `write_sheet` wrote reads back as the rows it was
    given, whatever their text.

    A sheet past `SHEET_LIMITS` (file size, unpacked size, compression ratio, rows, columns,
    cell length) is refused before it is parsed.
    """
    header, rows, problems = sheet_with_problems(path)
    if problems:
        raise InputError(problems)
    return header, rows


def sheet_with_problems(
    path: PathArg,
) -> tuple[tuple[str, ...], list[SheetRow], list[Problem]]:
    """`read_sheet`'s header and rows, and the problems of cells that are read as something
    else than the sheet shows (a column named twice, a cell
    outside the exported columns, an XLSX formula without its saved result), for the caller
    to report with the problems of the rows. A file that cannot be read at all, or is past
    `SHEET_LIMITS` (a cell past `max_cell_chars` included), raises `InputError`."""
    path = as_path(path)
    suffix = _check_suffix(path, "SHEET")
    check_input(path)
    cell_problems: list[Problem] = []
    if suffix == ".csv":
        table = _read_csv(path, SHEET_LIMITS)
    else:
        table, cell_problems = read_xlsx(path, SHEET_LIMITS)
    if not table:
        raise InputError([Problem(str(path), None, "row 1", "a header row", "an empty sheet")])
    header = tuple(cell.strip() for cell in table[0])
    rows = []
    too_long = False
    # A name given to two columns would keep one column's cells and drop the other's.
    cell_problems += [
        Problem(
            str(path), None, f"row 1: {name}", "each column name once in the header",
            f"{name!r} in columns "
            + ", ".join(str(i + 1) for i, c in enumerate(header) if c == name),
        )
        for name in dict.fromkeys(header)
        if name and header.count(name) > 1
    ]
    for offset, values in enumerate(table, start=1):
        for index, value in enumerate(values):
            problem = check_cell(path, offset, column_name(header, index), value, SHEET_LIMITS)
            if problem is not None:
                cell_problems.append(problem)
                too_long = True
        if offset == 1 or not any(v.strip() for v in values):
            continue
        # A cell under no column name (past the header, or under an empty name) would be read
        # as nothing: a reviewer's note typed there is refused, not dropped.
        stray = "no cell outside the exported columns (this column has no name in the header)"
        cell_problems += [
            Problem(str(path), None, f"row {offset}: column {index + 1}", stray, found_text(value))
            for index, value in enumerate(values)
            if value.strip() and not (index < len(header) and header[index])
        ]
        cells = {
            name: unguarded(values[i]) if i < len(values) else ""
            for i, name in enumerate(header)
            if name
        }
        rows.append(SheetRow(offset, cells))
    if too_long:
        # A cell past the bound is refused before the rows are checked, as a file past the
        # other bounds is.
        raise InputError(cell_problems)
    return header, rows, cell_problems
