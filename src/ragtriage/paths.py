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
