"""Paths as every public function takes them: `str` or any `os.PathLike`, turned into `Path`."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

PathArg = str | os.PathLike[str]
"""A path as every public function takes it: `str` or any `os.PathLike`."""


def as_path(value: PathArg) -> Path:
    """`value` as a `Path`."""
    return value if isinstance(value, Path) else Path(os.fspath(value))


def as_optional_path(value: PathArg | None) -> Path | None:
    """`as_path`, keeping None."""
    return None if value is None else as_path(value)


def as_paths(values: Iterable[PathArg] | PathArg) -> tuple[Path, ...]:
    """Several paths; a single `str` or path counts as one (not as its characters)."""
    if isinstance(values, (str, os.PathLike)):
        return (as_path(values),)
    return tuple(as_path(v) for v in values)


_FILE_NAME_MAX = 100


def is_safe_file_stem(name: str) -> bool:
    """True when `name` can be a file name's stem as it is, on every common file system.

    Letters (any script), digits, `-`, `_` and `.`; not starting with `.`; at most 100
    characters. Names outside this are refused where a file is named after them, never
    rewritten (two different names must not land in one file).
    """
    return (
        0 < len(name) <= _FILE_NAME_MAX
        and not name.startswith(".")
        and all(ch.isalnum() or ch in "-_." for ch in name)
    )


SAFE_FILE_STEM = (
    "a name usable as a file name (letters, digits, '-', '_', '.'; "
    f"not starting with '.'; at most {_FILE_NAME_MAX} characters)"
)
"""What `is_safe_file_stem` accepts, in the words of an error message."""
