"""Bytes to text: UTF-8 only, one byte-order-mark rule for every format.

The rule: a UTF-8 byte order mark at the very start of a file is skipped (spreadsheet
programs and some editors write one); a UTF-16 or UTF-32 mark, a byte that is not UTF-8 or
a NUL character is refused, naming the line and column and how to convert the file; a
file starting with the signature of a binary format (Parquet, gzip, ZIP, zstd, LZ4) is
refused as that format.
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
_BINARY = (
    (b"PAR1", "a Parquet file", ""),
    (b"\x1f\x8b", "gzip-compressed data", "`gzip -dc {} > {}`"),
    (b"PK\x03\x04", "a ZIP archive (.zip, .xlsx)", ""),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data", "`zstd -d {} -o {}`"),
    (b"\x04\x22\x4d\x18", "LZ4-compressed data", "`lz4 -d {} {}` (ranx's `save(\"r.lz4\")` holds"
     " CBOR, not text: save the run with a .json or .trec name instead)"),
)
"""Signatures of binary formats given where text is read: named, not offered to `iconv`;
compressed data with the command that decompresses it (no decompressor is a dependency)."""


def convert_hint(source: str, label: str) -> str:
    """How to turn a file of another encoding into UTF-8."""
    name = Path(label)
    target = name.with_name(f"{name.stem}.utf8{name.suffix}").name
    return f"convert it to UTF-8, e.g. `iconv -f {source} -t UTF-8 {name.name} > {target}`"


def _not_utf8(
    label: str, found: str, source: str, where: tuple[bytes, int, int] | None = None
) -> InputError:
    """The problem of a file that is not UTF-8 text: what was `found`, then how to convert it
    from `source`; at `where` (data, byte offset, number of its first line) when given, by
    line and column (the column counts characters, from 1), else at the file."""
    field = "(file)"
    if where is not None:
        data, offset, first_line = where
        start = data.rfind(b"\n", 0, offset) + 1
        line = first_line + data.count(b"\n", 0, offset)
        column = len(data[start:offset].decode("utf-8", errors="replace")) + 1
        field = f"line {line} column {column}"
    return file_problem(label, "UTF-8 text", f"{found}; {convert_hint(source, label)}", field)


def strip_bom(data: bytes, label: str) -> bytes:
    """`data` without a leading UTF-8 byte order mark; another encoding's mark, or a binary
    format's signature, is refused."""
    for mark, found, command in _BINARY:
        if data.startswith(mark):
            path = Path(label)
            plain = path.suffix in (".gz", ".zst", ".lz4")  # else one not to lose (`.jsonl`)
            target = path.stem if plain else f"{path.stem}.decompressed{path.suffix}"
            hint = f"; decompress it first: {command.format(path.name, target)}" if command else ""
            raise file_problem(label, "UTF-8 text", f"{found}, not text{hint}")
    if data.startswith(_UTF8_BOM):
        return data[len(_UTF8_BOM) :]
    for mark, name in _OTHER_BOMS:
        if data.startswith(mark):
            raise _not_utf8(label, f"{name} text (a {name} byte order mark)", name)
    return data


def decode(data: bytes, label: str, first_line: int = 1, at_start: bool = True) -> str:
    """UTF-8 text of `data` (a whole file when `at_start`, else one of its lines)."""
    if at_start:
        data = strip_bom(data, label)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex().upper()
        found = f"the byte 0x{bad}, which is not UTF-8 (is the file GBK, Latin-1 or UTF-16?)"
        raise _not_utf8(label, found, "GBK", (data, exc.start, first_line)) from None
    if "\x00" in text:
        found = "a NUL character (is the file UTF-16 or binary?)"
        raise _not_utf8(label, found, "UTF-16", (data, data.index(b"\x00"), first_line))
    return text
