"""Paths as every public function takes them: `str` or any `os.PathLike`, turned into `Path`
(and names, one `str` or several, as `as_paths` takes paths)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from .errors import Problem, option_problem, wrong_argument

PathArg = str | os.PathLike[str]
"""A path as every public function takes it: `str` or any `os.PathLike`."""


def as_path(value: PathArg, name: str | None = None) -> Path:
    """`value` as a `Path`; anything else (None, a number, bytes) is a `RequestError` naming
    the argument `name`, instead of a `TypeError` from deep inside."""
    if isinstance(value, Path):
        return value
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise wrong_argument(value, name, "a path (a str or os.PathLike)")
    return Path(text)


def as_optional_path(value: PathArg | None, name: str | None = None) -> Path | None:
    """`as_path`, keeping None."""
    return None if value is None else as_path(value, name)


def as_paths(values: Iterable[PathArg] | PathArg, name: str | None = None) -> tuple[Path, ...]:
    """Several paths; a single `str` or path counts as one (not as its characters). A value
    that is neither (None, a number) is a `RequestError` naming the argument `name`."""
    if isinstance(values, (str, os.PathLike)):
        return (as_path(values, name),)
    if isinstance(values, (bytes, Mapping)) or not isinstance(values, Iterable):
        raise wrong_argument(values, name, "a path or an iterable of paths")
    return tuple(as_path(v, name) for v in values)


def as_names(values: Iterable[str] | str, name: str) -> tuple[str, ...]:
    """Names as the keyword `name` takes them: one `str` is one name (not its characters);
    anything but a str or an iterable of str is a `RequestError` naming the keyword."""
    if isinstance(values, str):
        return (values,)
    expected = "a str or an iterable of str"
    if isinstance(values, (bytes, Mapping)) or not isinstance(values, Iterable):
        raise wrong_argument(values, name, expected)
    found = tuple(values)
    for value in found:
        if not isinstance(value, str):
            raise wrong_argument(value, name, expected)
    return found


def check_paths(
    *required: tuple[str, object], optional: Iterable[tuple[str, object]] = ()
) -> None:
    """Refuse the first `(argument, value)` whose value is no path (`as_path`: a
    `RequestError` naming the argument); an `optional` one may be None. The values are
    checked, not turned into `Path`s: an output is checked as given (`fileio.check_output`)."""
    for name, value in [*required, *((n, v) for n, v in optional if v is not None)]:
        as_path(value, name)  # type: ignore[arg-type]


def repeated_files(option: str, paths: Iterable[PathArg]) -> list[Problem]:
    """A problem per file of `paths` that an earlier one is too, however it is spelled (one
    real path): read twice, its records would count twice."""
    seen: set[str] = set()
    problems = []
    for path in paths:
        if (key := os.path.realpath(path)) in seen:
            problems.append(option_problem(option, "each file once", f"'{path}' again"))
        seen.add(key)
    return problems


_FILE_NAME_MAX = 100


def is_safe_file_stem(name: object) -> bool:
    """True when `name` can be a file name's stem as it is, on every common file system.

    Letters (any script), digits, `-`, `_` and `.`; not starting with `.`; at most 100
    characters. Names outside this are refused where a file is named after them, never
    rewritten (two different names must not land in one file).
    """
    return (
        isinstance(name, str)
        and 0 < len(name) <= _FILE_NAME_MAX
        and not name.startswith(".")
        and all(ch.isalnum() or ch in "-_." for ch in name)
    )


SAFE_FILE_STEM = (
    "a name usable as a file name (letters, digits, '-', '_', '.'; "
    f"not starting with '.'; at most {_FILE_NAME_MAX} characters)"
)
"""What `is_safe_file_stem` accepts, in the words of an error message."""


def file_suffix(path: PathArg) -> str:
    """A file's suffix as the kind of file is told by it: in lower case (`RUN.JSONL` is a
    JSONL file, `Q.PARQUET` a Parquet one)."""
    return as_path(path).suffix.lower()
