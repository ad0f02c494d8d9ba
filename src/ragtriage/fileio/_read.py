"""Whole-file readers every command goes through: text, a JSON document, TOML, JSON lines."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO, cast

from ..errors import InputError, ProblemCollector
from ..paths import PathArg, as_path
from ._decode import decode, strip_bom
from ._limits import MAX_DOCUMENT_BYTES
from ._open import file_problem, iter_lines, open_input, read_bytes
from ._strict_json import parse_json, parse_toml


def read_text(
    path: PathArg, label: str | None = None, limit: int = MAX_DOCUMENT_BYTES, what: str = "a file"
) -> str:
    """A regular file's UTF-8 text (BOM rule applied), refused past `limit` bytes."""
    label = str(path) if label is None else label
    return decode(read_bytes(path, label, limit, what), label)


def read_json(path: PathArg, label: str | None = None) -> Any:
    """A whole JSON document, parsed strictly; an empty file is refused as such."""
    label = str(path) if label is None else label
    text = read_text(path, label, what="a JSON document")
    refuse_blank(text, label, "a JSON document")
    return parse_json(text, label)


def refuse_blank(text: str, label: str, expected: str, blank: str = "only whitespace") -> None:
    """Refuse a file's text that is all whitespace: found `blank`, or "an empty file"."""
    if not text.strip():
        raise file_problem(label, expected, blank if text else "an empty file")


def read_toml(path: PathArg, label: str | None = None) -> dict[str, Any]:
    """A whole TOML document, parsed strictly."""
    label = str(path) if label is None else label
    return parse_toml(read_text(path, label, what="a TOML document"), label)


def text_lines(
    path: PathArg,
    label: str | None = None,
    gunzip: bool = False,
    problems: ProblemCollector | None = None,
) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line of a text file, streamed, each line bounded;
    `gunzip`: of the text a gzip-compressed file holds. With `problems`, a line that is not
    UTF-8 text (a byte that is not UTF-8, a NUL) is added to it and the reading goes on with
    the next line, as a line that is not JSON does; without, it is raised. A problem of the
    file itself (not a regular file, a line past the bound, another encoding's byte order
    mark) is always raised."""
    path = as_path(path)
    label = str(path) if label is None else label
    with open_input(path, label) as handle:
        stream = cast(BinaryIO, gzip.GzipFile(fileobj=handle)) if gunzip else handle
        try:
            for number, raw in iter_lines(stream, label):
                data = strip_bom(raw, label) if number == 1 else raw
                try:
                    text = decode(data, label, number, at_start=False)
                except InputError as exc:
                    if problems is None:
                        raise
                    problems.extend(exc.problems)
                    continue
                yield number, text
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise file_problem(label, "gzip-compressed text", str(exc)) from None


def json_lines(path: PathArg, label: str | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, value) of every non-blank line of a JSONL file, parsed strictly."""
    label = str(path) if label is None else label
    for number, text in text_lines(path, label):
        if text.strip():
            yield number, parse_json(text, label, number)
