"""Opening an input file: only a regular file, opened without blocking, read within a bound.

A named pipe would block the open (and then the read) forever; `/dev/zero` never ends; a
directory or a symbolic-link loop is no file at all. The file is opened non-blocking first,
then checked with `fstat` on the open descriptor (so it cannot be swapped between the check
and the read), and only then read.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

from ..errors import InputError, Problem
from ..paths import PathArg, as_path
from ._limits import MAX_DOCUMENT_BYTES, MAX_LINE_BYTES, size_text

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_problem(label: str, expected: str, found: str, field: str = "(file)") -> InputError:
    """An `InputError` about a whole file (or a place in it, or `<command line>` and an option)."""
    return InputError([Problem(label, None, field, expected, found)])


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


DASH = "is not standard {} here; name a file"
"""What a path of `-` is told: no command reads standard input or writes standard output
by that name (a file named `-` is read or written given with its folder: `/tmp/-`)."""


def _os_problem(label: str, exc: OSError) -> InputError:
    if exc.errno == errno.ENOENT:
        dash = f" ('-' {DASH.format('input')})" if label == "-" else ""
        return file_problem(label, "an existing file", "no such file" + dash)
    if exc.errno == errno.ELOOP:
        return file_problem(label, "a regular file", "a loop of symbolic links")
    if exc.errno == errno.EISDIR:
        return file_problem(label, "a regular file", "a directory")
    if exc.errno == errno.ENOTDIR:
        return file_problem(label, "an existing file", "a path through something not a folder")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return file_problem(label, "a readable file", "permission denied")
    return file_problem(label, "a readable file", exc.strerror or type(exc).__name__)


def open_input(path: PathArg, label: str | None = None, buffering: int = -1) -> BinaryIO:
    """Open a regular file for binary reading (`buffering` as `open` takes it); anything else
    raises `InputError`."""
    path = as_path(path)
    label = str(path) if label is None else label
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _os_problem(label, exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise file_problem(label, "a regular file", kind_of(mode))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def check_input(path: PathArg, label: str | None = None) -> int:
    """Check that `path` is a regular file a library may open itself; return its size."""
    with open_input(path, label) as handle:
        return os.fstat(handle.fileno()).st_size


def read_bytes(
    path: PathArg,
    label: str | None = None,
    limit: int = MAX_DOCUMENT_BYTES,
    what: str = "a file",
) -> bytes:
    """A regular file's bytes, refused (before reading) when larger than `limit`."""
    path = as_path(path)
    label = str(path) if label is None else label
    with open_input(path, label) as handle:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(limit + 1) if size <= limit else b""
    if size > limit or len(data) > limit:
        found = f"{size} bytes" if size > limit else f"more than {limit} bytes"
        raise file_problem(label, f"{what} of at most {size_text(limit)}", found)
    return data


LONGER_LINE = "a longer line"
"""What `iter_lines` found when it stopped at a line past the bound."""


def iter_lines(handle: BinaryIO, label: str, end: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of a binary file, each line at most `MAX_LINE_BYTES`.

    A longer line (or a file without line breaks) raises `InputError` after reading at most
    the bound, never the whole line. `end`: stop at the first line starting at or after this
    byte offset.
    """
    number = 0
    position = handle.tell() if end is not None else 0
    limit = MAX_LINE_BYTES
    readline = handle.readline
    while True:
        if end is not None and position >= end:
            return
        line = readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit:
            expected = f"a line of at most {size_text(limit)}"
            raise file_problem(label, expected, LONGER_LINE, f"line {number}")
        position += len(line)
        yield number, line
