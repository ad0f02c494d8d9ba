"""Bytes to text: UTF-8 only, one byte-order-mark rule for every format.

The rule: a UTF-8 byte order mark at the very start of a file is skipped (spreadsheet
programs and some editors write one); a UTF-16 or UTF-32 mark, a byte that is not UTF-8 or
a NUL character is refused, naming the line and column and how to convert the file.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from ..errors import InputError
from ._open import file_problem

_UTF8_BOM = codecs.BOM_UTF8
_OTHER_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def convert_hint(source: str, label: str) -> str:
    """How to turn a file of another encoding into UTF-8."""
    name = Path(label)
    target = name.with_name(f"{name.stem}.utf8{name.suffix}").name
    return f"convert it to UTF-8, e.g. `iconv -f {source} -t UTF-8 {name.name} > {target}`"


def strip_bom(data: bytes, label: str) -> bytes:
    """`data` without a leading UTF-8 byte order mark; another encoding's mark is refused."""
    if data.startswith(_UTF8_BOM):
        return data[len(_UTF8_BOM) :]
    for mark, name in _OTHER_BOMS:
        if data.startswith(mark):
            raise file_problem(
                label,
                "UTF-8 text",
                f"{name} text (a {name} byte order mark); {convert_hint(name, label)}",
            )
    return data


def _place(data: bytes, offset: int, first_line: int) -> tuple[int, int]:
    """(line, column) of byte `offset`; the column counts characters, from 1."""
    start = data.rfind(b"\n", 0, offset) + 1
    line = first_line + data.count(b"\n", 0, offset)
    column = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


def undecodable(label: str, data: bytes, exc: UnicodeDecodeError, first_line: int) -> InputError:
    """The problem for bytes that are not UTF-8, at their line and column."""
    line, column = _place(data, exc.start, first_line)
    bad = data[exc.start : exc.start + 1].hex().upper()
    return file_problem(
        label,
        "UTF-8 text",
        f"the byte 0x{bad}, which is not UTF-8 (is the file GBK, Latin-1 or UTF-16?); "
        + convert_hint("GBK", label),
        f"line {line} column {column}",
    )


def decode(data: bytes, label: str, first_line: int = 1, at_start: bool = True) -> str:
    """UTF-8 text of `data` (a whole file when `at_start`, else one of its lines)."""
    if at_start:
        data = strip_bom(data, label)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise undecodable(label, data, exc, first_line) from None
    if "\x00" in text:
        line, column = _place(data, data.index(b"\x00"), first_line)
        raise file_problem(
            label,
            "UTF-8 text",
            f"a NUL character (is the file UTF-16 or binary?); {convert_hint('UTF-16', label)}",
            f"line {line} column {column}",
        )
    return text
