"""Where the engine's records come from: a native file (JSON or JSONL; parsed whole or a byte
range at a time, read again by position for the views: a JSONL file's lines, a JSON
document's records as compact texts written once) or models held in memory (read as
their JSON form, given back as they are).

A file the reader cannot take as it is (unreadable, a line past the size bound, a header
that is not an object) raises `_Fallback`: the caller then runs the loader, which names the
problem.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, BinaryIO, Generic, TypeVar

import numpy as np
import orjson
from pydantic import BaseModel, ValidationError

from ..errors import InputError
from ..fileio import (
    MAX_LINE_BYTES,
    check_input,
    file_problem,
    iter_lines,
    open_input,
    read_bytes,
    strip_bom,
)
from ..paths import file_suffix
from ._native_checks import loads, loads_again
from ._trec import _Fallback


def records(
    path: Path, list_key: str, span: tuple[int, int] | None = None,
    starts: array[int] | None = None,
) -> tuple[dict[str, Any], Iterator[Any]]:
    """A file's header (without the record list) and its records as parsed JSON.

    `span` (JSONL only): read only the records whose lines start in [start, end) bytes.
    `starts` (JSONL only): each record's line start (byte offset) is added to it as the
    record is read.
    """
    if file_suffix(path) == ".jsonl":
        label = str(path)
        handle = _open(path, _READ_AHEAD)
        try:
            first = _first_line(handle, label)
        except InputError as exc:
            handle.close()
            raise _Fallback("header") from exc
        header = loads(first) if first else None
        if type(header) is not dict:
            handle.close()
            raise _Fallback("header")
        if span is not None:
            handle.seek(span[0])
        return header, _parsed(handle, label, None if span is None else span[1], starts)
    try:
        data = loads(strip_bom(read_bytes(path), str(path)))
    except InputError as exc:
        raise _Fallback("document") from exc
    if type(data) is not dict or type(data.get(list_key)) is not list:
        raise _Fallback("document")
    header = {key: value for key, value in data.items() if key != list_key}
    return header, iter(data[list_key])


_READ_AHEAD = 1 << 20
"""Bytes read from the file at once when its records are read in order (a record read again
is read alone). Fewer reads, not only fewer calls: each read lets go of the interpreter
lock, and a thread waiting for it (the forked workers' pool hands them their work from one)
takes it only after a switch interval without such a release. With reads of 8 KiB, one
every fraction of a millisecond, the thread that hands the first worker its range often
waited until this process had read its own range (at 100,000 questions, 0.1-0.3 s of the
evaluation set's 0.35 s)."""


def _open(path: Path, buffering: int = -1) -> BinaryIO:
    try:
        return open_input(path, buffering=buffering)
    except InputError as exc:
        raise _Fallback("file") from exc


def _first_line(handle: BinaryIO, label: str) -> bytes:
    """The first non-blank line (UTF-8 byte order mark removed), or b"" at the end."""
    for number, line in iter_lines(handle, label):
        if line.strip():
            return strip_bom(line, label) if number == 1 else line
    return b""


def _parsed(
    handle: BinaryIO, label: str, end: int | None, starts: array[int] | None
) -> Iterator[Any]:
    """The records of the lines up to byte `end`, parsed (the handle closed at the end; each
    one's line start added to `starts`); a line past the bound or an unreadable file falls
    back."""
    found = array("q") if starts is None else starts
    at = handle.tell()
    with handle:
        try:
            for _, line in iter_lines(handle, label, end):
                # Never empty; `isspace` finds a blank line without copying it as `strip` does.
                if not line.isspace():
                    found.append(at)
                    yield loads(line)
                at += len(line)
        except InputError as exc:
            raise _Fallback("line") from exc


_SPLIT_BYTES = 8 << 20


class Rereader:
    """A file's records read again a few at a time by position (0-based, header excluded).

    In a JSONL file each record's line is found by its byte offset (`starts`: as the first
    read found them), so no read holds more than the records asked for. A JSON document
    (`starts` None) is parsed once, the first time a record is asked for, as the first read
    parsed it, and each record kept as its compact JSON text (`orjson.dumps`), so a read
    parses only the records asked for, not the whole document again: the texts, about the
    size of the file, are held as long as the reader is.
    """

    def __init__(self, path: Path, list_key: str, starts: array[int] | None) -> None:
        self._where = (path, list_key)
        self._starts = starts
        self._texts: list[bytes] | None = None

    def parse(self, lines: dict[int, bytes]) -> dict[int, Any]:
        """Records' texts (from `lines`) parsed as the first read parsed them (`loads_again`;
        not checked again: the first read's checks accepted them)."""
        return {n: loads_again(line) for n, line in lines.items()}

    def lines(self, wanted: Iterable[int]) -> dict[int, bytes]:
        """The JSON texts of the records at these positions: a JSONL file's lines, a JSON
        document's records written compactly."""
        if self._starts is None:
            texts = self._document()
            return {n: texts[n] for n in wanted}
        out: dict[int, bytes] = {}
        at = -1
        with _open(self._where[0]) as handle:
            for n in sorted(set(wanted), key=self._starts.__getitem__):
                start = self._starts[n]
                if start != at:  # a seek drops the read buffer: only where a line is skipped
                    handle.seek(start)
                line = handle.readline()
                at = start + len(line)
                out[n] = line
        return out

    def _document(self) -> list[bytes]:
        """A JSON document's records as texts (parsed the first time asked)."""
        if self._texts is None:
            _, items = records(*self._where)
            self._texts = [_text(item) for item in items]
        return self._texts


def _text(record: Any) -> bytes:
    """A record as compact JSON text that `loads_again` parses back to it: orjson's, or, for
    an integer beyond 64 bits (which orjson cannot write; only the reference parser gives
    one), the standard library's (`loads_again` hands such a text to that parser again)."""
    try:
        return orjson.dumps(record)
    except orjson.JSONEncodeError:
        return json.dumps(record, separators=(",", ":")).encode("utf-8")


M = TypeVar("M", bound=BaseModel)


class FileRecords:
    """A native file's records (an evaluation set's questions, a run's results): parsed from
    the file (a byte range of a JSONL file at a time), and read again by position, as models
    or parsed JSON."""

    def __init__(self, path: Path, list_key: str) -> None:
        self.path = path
        self.list_key = list_key
        self.label = str(path)
        """What the result names as the records' file."""
        self._again: Rereader | None = None
        self._identity = _identity(path)

    def read(
        self, span: tuple[int, int] | None = None, starts: array[int] | None = None
    ) -> tuple[dict[str, Any], Iterator[Any]]:
        """The header and the records (those of `span`, see `records`) as parsed JSON (each
        one's line start added to `starts`, a JSONL file's)."""
        return records(self.path, self.list_key, span, starts)

    def found_starts(self, starts: np.ndarray) -> None:
        """The line starts of every record of a JSONL file, as its first read found them
        (`read`'s `starts`, the parts' joined): the records are read again by them (a JSON
        document's are parsed again when first asked for)."""
        if self._again is None and file_suffix(self.path) == ".jsonl":
            self._again = Rereader(self.path, self.list_key, array("q", starts.tobytes()))

    def spans(
        self, parts: int, min_bytes: int | None = None, front: float = 1.0
    ) -> list[tuple[int, int]] | None:
        """Cut a JSONL file's records into byte ranges on line starts, the first `front` times
        as long as each other, the others about equal (None: keep the file whole: a JSON
        document, or smaller than `min_bytes`, default 8 MiB, not worth splitting)."""
        path = self.path
        try:
            size = check_input(path)
        except InputError:
            return None  # reading the file whole names the problem
        limit = _SPLIT_BYTES if min_bytes is None else min_bytes
        if file_suffix(path) != ".jsonl" or parts < 2 or size < limit:
            return None
        with _open(path) as handle:
            try:
                _first_line(handle, str(path))
            except InputError as exc:
                raise _Fallback("header") from exc
            cuts = [handle.tell()]
            start, shares = cuts[0], front + parts - 1
            for n in range(1, parts):
                handle.seek(max(cuts[-1], start + int((size - start) * (front + n - 1) / shares)))
                if len(handle.readline(MAX_LINE_BYTES + 1)) > MAX_LINE_BYTES:
                    raise _Fallback("line")
                cuts.append(max(cuts[-1], handle.tell()))
        cuts.append(size)
        return list(pairwise(cuts))

    def models(self, wanted: Iterable[int], model: type[M]) -> dict[int, M]:
        """The records at these positions, read again and validated as `model` from their
        texts (unless one holds a `\\u` escape: then all are parsed as the first read parsed
        them). `_Fallback` for one the model refuses (it passed the fast checks: the loader
        names the problem)."""
        order = list(wanted)
        again = self._rereader()
        try:
            lines = again.lines(order)
            if not any(b"\\u" in line for line in lines.values()):
                return {n: model.model_validate_json(lines[n]) for n in order}
            found = again.parse(lines)  # the texts already read, parsed as the first read did
            return {n: model.model_validate(found[n]) for n in order}
        except ValidationError as exc:
            raise _Fallback(f"{model.__name__} model") from exc

    def parsed(
        self, wanted: Iterable[int], prepare: Callable[[Any], Any] | None = None
    ) -> dict[int, Any]:
        """The records at these positions, read again as parsed JSON (as the first read parsed
        them; not checked again: the first read's checks accepted them), changed by `prepare`
        when given."""
        again = self._rereader()
        found = again.parse(again.lines(wanted))
        return found if prepare is None else {n: prepare(record) for n, record in found.items()}

    def _rereader(self) -> Rereader:
        # A result's views are read again from the file, maybe long after the scoring (a
        # Python caller may have changed the file since): never from another file.
        if _identity(self.path) != self._identity:
            found = "a file changed or removed since (score it again)"
            raise file_problem(self.label, "the file as it was when it was scored", found)
        if self._again is None:
            if file_suffix(self.path) == ".jsonl":  # `found_starts` makes a JSONL file's
                raise RuntimeError(f"{self.label}: records read again before they were read")
            self._again = Rereader(self.path, self.list_key, None)
        return self._again

    def held(self) -> Sequence[Any] | None:
        """Models held in memory (None: read from the file when asked)."""
        return None


def _identity(path: Path) -> tuple[int, ...] | None:
    """What changes when a file is rewritten or replaced (None: no file to read)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns


class ModelRecords(Generic[M]):
    """Records held as validated models (a `Dataset` in memory): read as their JSON form, the
    models themselves given back when asked for."""

    def __init__(self, header: dict[str, Any], items: Sequence[M], label: str) -> None:
        self._header = header
        # The caller's list, if it changes after the scoring, must not change the result's
        # views: the models are frozen, the list is not.
        self._items = tuple(items)
        self.label = label
        """What the result names as the records' file."""

    def read(
        self, span: tuple[int, int] | None = None, starts: array[int] | None = None
    ) -> tuple[dict[str, Any], Iterator[Any]]:
        """The header and every record, as the models' JSON form (never split; no line
        starts)."""
        return self._header, (item.model_dump(mode="json") for item in self._items)

    def found_starts(self, starts: np.ndarray) -> None:
        """Nothing: the models are held."""

    def spans(
        self, parts: int, min_bytes: int | None = None, front: float = 1.0
    ) -> list[tuple[int, int]] | None:
        """None: read whole."""
        return None

    def models(self, wanted: Iterable[int], model: type[M]) -> dict[int, M]:
        """The models at these positions, as held."""
        return {n: self._items[n] for n in wanted}

    def parsed(
        self, wanted: Iterable[int], prepare: Callable[[Any], Any] | None = None
    ) -> dict[int, Any]:
        """The models at these positions in their JSON form (as `read` gives them; `prepare`
        is for records read from a file, unused here)."""
        return {n: self._items[n].model_dump(mode="json") for n in wanted}

    def held(self) -> Sequence[M] | None:
        """The models."""
        return self._items


Records = FileRecords | ModelRecords[Any]
"""Where a reader's records come from."""
