"""Reading the versioned TOML rule files of the boundary detectors (injection, sensitive)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import TypeVar

from ..errors import InputError, Problem, Suggestions, refused_once
from ..fileio import parse_toml, read_text
from ..paths import PathArg, as_path

T = TypeVar("T")


def parse_rule_file(path: PathArg, what: str, parse: Callable[[dict[str, object], str], T]) -> T:
    """`parse` applied to a user's TOML rule file; `what` names the file in a size error."""
    path = as_path(path)
    label = str(path)
    text = read_text(path, label, what=f"a {what}")
    refused: list[Problem] = []  # numbers that are not finite, reported with every other problem
    data: dict[str, object] = dict(parse_toml(text, label, refused))
    try:
        parsed = parse(data, label)
    except InputError as exc:
        raise InputError(refused_once(refused, exc.problems)) from None
    if refused:
        raise InputError(refused)
    return parsed


def parse_bundled_rules(
    version: str, field: str, expected: str, parse: Callable[[dict[str, object], str], T]
) -> T:
    """`parse` applied to the bundled `rules/<version>.toml`.

    An unknown version is an `InputError` on `field`, expecting `expected`.
    """
    name = f"{version}.toml"
    resource = resources.files("ragtriage.detectors").joinpath("rules", name)
    if not resource.is_file():
        raise InputError([Problem("<package data>", None, field, expected, repr(version))])
    return parse(tomllib.loads(resource.read_text(encoding="utf-8")), f"rules/{name}")


def compile_pattern(pattern: str, flags: int, source: str, where: str) -> re.Pattern[str] | Problem:
    """The compiled `where.pattern`, or the problem saying why it is not a valid expression."""
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        return Problem(source, None, f"{where}.pattern", "a valid regular expression", str(exc))


def read_normalise(data: Mapping[str, object], source: str, problems: list[Problem]) -> bool:
    """The optional top-level `normalise` switch of a rule file (default true).

    A wrong type is added to `problems` (and read as true).
    """
    value = data.get("normalise", True)
    if isinstance(value, bool):
        return value
    problems.append(Problem(source, None, "normalise", "true or false", repr(value)))
    return True


def unknown_keys(
    raw: Mapping[str, object], allowed: Sequence[str], source: str, where: str,
    problems: list[Problem],
) -> None:
    """Add to `problems` the keys of the table `where` (`(top level)` for the file's) that are
    not `allowed`, if any (`only a, b, c` expected), each with the allowed key it is close
    to, if one is (`normalize (did you mean 'normalise'?)`)."""
    extra = sorted(set(raw) - set(allowed))
    if extra:
        expected = f"only {', '.join(allowed)}"
        hint = Suggestions(allowed)
        found = ", ".join(key + hint(key) for key in extra)
        problems.append(Problem(source, None, where, expected, found))


def used_once(
    key: str, seen: set[str], source: str, field: str, what: str, problems: list[Problem]
) -> None:
    """Add to `problems` that `key`, a `what` (`a rule ID`) at `field`, was used before in
    the file (`seen`), if it was; `key` is then noted as used."""
    if key in seen:
        problems.append(Problem(source, None, field, f"{what} not used before", repr(key)))
    seen.add(key)
