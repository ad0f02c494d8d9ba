"""Bounds on a review sheet, checked before a spreadsheet library or the CSV reader touches it.

A sheet comes from outside (a reviewer's spreadsheet program, or anyone's). An XLSX file is a
zip of XML: a 1 MB file can inflate to gigabytes, and one cell at the sheet's last address
(XFD1048576) makes a reader pad billions of empty cells. So the zip's directory (declared
sizes, compression ratios) and every worksheet's cell addresses are checked first, with the
standard library, and a sheet past any bound is refused naming the file and the bound.
Python's zip reader never inflates a member past its declared size, so checking the declared
sizes is enough.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import iterparse
from xml.parsers import expat

from ..errors import InputError, Problem
from ..fileio import file_problem

MIB = 1024 * 1024


@dataclass(frozen=True)
class SheetLimits:
    """How large a review sheet may be. Far above any real review; far below a machine's."""

    max_file_bytes: int = 64 * MIB
    """Size of the sheet file on disk (CSV or XLSX)."""
    max_unpacked_bytes: int = 256 * MIB
    """Sum of the declared uncompressed sizes of an XLSX file's members."""
    max_ratio: int = 100
    """Uncompressed / compressed size of one XLSX member (checked for members over 1 MiB;
    spreadsheet XML compresses about 5-20 times)."""
    max_rows: int = 100_000
    """Rows, the header included."""
    max_columns: int = 64
    """Columns (a sheet has 17)."""
    max_cell_chars: int = 1_000_000
    """Characters in one cell."""


SHEET_LIMITS = SheetLimits()
"""The bounds every sheet read is held to."""

_RATIO_FLOOR = MIB
_CELL_REF = re.compile(r"([A-Z]{1,3})?([0-9]{1,9})?$")


def _problem(path: Path, field: str, expected: str, found: str) -> Problem:
    return Problem(str(path), None, field, expected, found)


def check_file_size(path: Path, limits: SheetLimits = SHEET_LIMITS) -> None:
    """Refuse a sheet file larger than `max_file_bytes`."""
    size = path.stat().st_size
    if size > limits.max_file_bytes:
        expected = f"a sheet of at most {limits.max_file_bytes} bytes"
        raise file_problem(str(path), expected, f"{size} bytes")


def _column_number(letters: str) -> int:
    number = 0
    for ch in letters:
        number = number * 26 + ord(ch) - ord("A") + 1
    return number


def _address(ref: str) -> tuple[int, int]:
    """(row, column) of an `A1`-style address; 0 for a part that is absent."""
    match = _CELL_REF.match(ref.replace("$", "").upper())
    if match is None:
        return 0, 0
    letters, digits = match.groups()
    return int(digits or 0), _column_number(letters or "")


def _scan_worksheet(
    book: zipfile.ZipFile, name: str, path: Path, limits: SheetLimits
) -> list[Problem]:
    """The declared dimension and every row and cell position (stated or implied) of a sheet."""
    where = f"{name}: "
    expected = f"at most {limits.max_rows} rows and {limits.max_columns} columns"
    row = col = 0
    with book.open(name) as stream:
        for event, element in iterparse(stream, events=("start", "end")):
            tag = element.tag.rsplit("}", 1)[-1]
            if event == "start" and tag == "row":
                # A row or cell without an address follows the previous one, as readers place it.
                stated = element.get("r")
                row = int(stated) if stated and stated.isdigit() else row + 1
                col = 0
            elif event == "start" and tag == "c":
                stated_row, stated_col = _address(element.get("r") or "")
                row = stated_row or row
                col = stated_col or col + 1
            elif event == "start" and tag == "dimension":
                ref = element.get("ref", "")
                corners = [_address(corner) for corner in ref.split(":")]
                if any(r > limits.max_rows or c > limits.max_columns for r, c in corners):
                    return [_problem(path, where + "dimension", expected, repr(ref))]
            far = row > limits.max_rows or col > limits.max_columns
            if event == "start" and tag in ("row", "c") and far:
                kind = "cell" if tag == "c" else "row"
                ref = element.get("r") or f"row {row}, column {col}"
                return [_problem(path, where + f"{kind} {ref}", expected, f"a {kind} at {ref}")]
            if event == "end" and tag == "row":
                element.clear()
    return []


class _Verdict(Exception):
    """Stops the prologue scan: whether a document type declaration came before the root."""

    def __init__(self, doctype: bool) -> None:
        super().__init__()
        self.doctype = doctype


def _has_doctype(book: zipfile.ZipFile, name: str) -> bool:
    """True when an XML member declares a document type (where entity expansion hides).

    Spreadsheet files never declare one; only the prologue is read, up to the root element.
    """
    parser = expat.ParserCreate()

    def doctype(*_: object) -> None:
        raise _Verdict(True)

    def element(*_: object) -> None:
        raise _Verdict(False)

    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = element
    try:
        with book.open(name) as stream:
            while chunk := stream.read(64 * 1024):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except _Verdict as verdict:
        return verdict.doctype
    except expat.ExpatError:
        return False  # not well-formed: openpyxl's own reading reports it
    return False


def check_xlsx(path: Path, limits: SheetLimits = SHEET_LIMITS) -> None:
    """Refuse an XLSX file whose zip or worksheets are past the bounds; every problem at once."""
    check_file_size(path, limits)
    try:
        book = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        found = f"{type(exc).__name__}: {exc}"
        raise file_problem(str(path), "an XLSX workbook", found) from exc
    with book:
        problems: list[Problem] = []
        members = book.infolist()
        total = sum(m.file_size for m in members)
        if total > limits.max_unpacked_bytes:
            expected = f"at most {limits.max_unpacked_bytes} bytes unpacked"
            problems.append(_problem(path, "(zip)", expected, f"{total} bytes declared"))
        for member in members:
            ratio = member.file_size / max(member.compress_size, 1)
            if member.file_size > _RATIO_FLOOR and ratio > limits.max_ratio:
                expected = f"a compression ratio of at most {limits.max_ratio}"
                found = f"{member.file_size} bytes from {member.compress_size} (ratio {ratio:.0f})"
                problems.append(_problem(path, member.filename, expected, found))
        if problems:
            raise InputError(problems)
        for member in members:
            if member.filename.endswith((".xml", ".rels")) and _has_doctype(book, member.filename):
                expected = "XML without a document type declaration (spreadsheets have none)"
                problems.append(_problem(path, member.filename, expected, "a <!DOCTYPE ...>"))
        if problems:
            raise InputError(problems)
        for member in members:
            if member.filename.startswith("xl/worksheets/") and member.filename.endswith(".xml"):
                try:
                    problems.extend(_scan_worksheet(book, member.filename, path, limits))
                except (SyntaxError, zipfile.BadZipFile, OSError, EOFError) as exc:
                    problems.append(
                        _problem(path, member.filename, "well-formed worksheet XML", str(exc))
                    )
    if problems:
        raise InputError(problems)


def check_cell(
    path: Path, row: int, column: str, text: str, limits: SheetLimits = SHEET_LIMITS
) -> Problem | None:
    """A problem when one cell holds more than `max_cell_chars` characters."""
    if len(text) <= limits.max_cell_chars:
        return None
    return _problem(
        path,
        f"row {row}: {column}",
        f"at most {limits.max_cell_chars} characters in a cell",
        f"{len(text)} characters",
    )
