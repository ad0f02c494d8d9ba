"""Strict JSON and TOML: no duplicate keys, only finite numbers, bounded integers and depth.

Python's parsers let the last of two equal keys win, read `NaN`, `Infinity` and `1e400`
(infinity), convert integers of any length until a `ValueError`, and recurse until a
`RecursionError`. One decoder (`loads_strict`, `_raw_decode`) refuses each of these with a
`StrictJSONError` saying what was expected and what was found; input files turn it into one
`InputError` naming the file and the place (line and column when known), the judge into the
reason a reply is `cannot_judge`.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Iterator
from functools import cache
from typing import Any

from ..errors import InputError, Problem, ProblemCollector, shortened
from ._limits import MAX_DEPTH, MAX_INT_DIGITS
from ._open import file_problem
from ._surrogates import lone_surrogate

FINITE = "a finite number"
"""What a number in any input must be (the same words for every file kind)."""

_DESCRIPTIONS = (
    ("Expecting value", "something that is not a JSON value"),
    (
        "Expecting property name enclosed in double quotes",
        "a key not in double quotes, or a comma before a closing brace",
    ),
    ("Expecting ',' delimiter", "a missing comma between two items"),
    ("Expecting ':' delimiter", "a key without `:` after it"),
    ("Unterminated string", "a string that is not closed"),
    ("Invalid control character", "a line break or control character inside a string"),
    ("Invalid \\uXXXX escape", "a broken `\\u` escape"),
    ("Invalid \\escape", "a backslash escape JSON does not know"),
    ("Extra data", "more text after the JSON value"),
)


class StrictJSONError(ValueError):
    """JSON a strict rule refuses: what was `expected` and what was `found` (and the number
    `token` that broke the rule, to locate it in the text; `twice`: a key written twice;
    `at`: where in the text it is, when known)."""

    def __init__(
        self,
        expected: str,
        found: str,
        token: str | None = None,
        twice: bool = False,
        at: int | None = None,
    ) -> None:
        super().__init__(f"expected {expected}; found {found}")
        self.expected = expected
        self.found = found
        self.token = token
        self.twice = twice
        self.at = at


def _too_deep(limit: int) -> StrictJSONError:
    return StrictJSONError(f"at most {limit} levels of nested arrays and objects", "deeper nesting")


def _too_long(limit: int) -> StrictJSONError:
    return StrictJSONError(
        f"integers of at most {limit} digits", f"an integer of more than {limit} digits"
    )


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                shown = key if len(key) <= 40 else key[:40] + "..."
                raise StrictJSONError(
                    "each key at most once in an object", f"the key {shown!r} twice", twice=True
                )
            seen.add(key)
    return out


def _constant(name: str) -> Any:
    raise StrictJSONError(FINITE, name, name)


def _beyond(text: str) -> StrictJSONError:
    """A number, float or integer, that a float cannot hold (it would be infinity)."""
    return StrictJSONError(
        FINITE, f"{shortened(text)} (beyond the largest number, about 1.8e308)", text
    )


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _beyond(text)
    return value


def _bounded_int(limit: int) -> Any:
    """The parser of integers of at most `limit` digits that a float can hold: a number
    beyond the largest float is refused as `1e400` is, integer or not (the reader knows no
    field, and none takes one: scores, latency and cost are floats, counts and grades are
    bounded far below, IDs are strings)."""
    short = min(limit, 308)  # digits within both bounds: the float's is about 1.8e308

    def parse(text: str) -> int:
        if len(text) <= short:  # the common case, no more to check
            return int(text)
        if len(text) - text.startswith("-") > limit:
            raise _too_long(limit)
        value = int(text)
        try:
            float(value)
        except OverflowError:
            raise _beyond(text) from None
        return value

    return parse


@cache
def _decoder(max_int_digits: int) -> json.JSONDecoder:
    """The strict decoder (made once per bound): every number is read by `_float` or
    `_bounded_int` (an integer costs a call, as a float already did)."""
    return json.JSONDecoder(
        object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float,
        parse_int=_bounded_int(max_int_digits),
    )


def _plain(message: str) -> str:
    for prefix, plain in _DESCRIPTIONS:
        if message.startswith(prefix):
            return plain
    return message[:1].lower() + message[1:]


def _where(text: str, offset: int, line: int | None) -> str:
    """`line L column C` of `text[offset]` (`line`: the text is that line of a file); the same
    place `json.JSONDecodeError` gives."""
    row = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    return f"line {row if line is None else line + row - 1} column {column}"


def _locate(text: str, token: str | None, line: int | None) -> str:
    """Where a refused number token first appears as a value, outside strings ("(file)" when
    not found). Every value before it was read, so none of them starts with the token."""
    if token:
        value = re.compile(r'"(?:[^"\\]|\\.)*"|[\[:,]\s*(' + re.escape(token) + ")")
        for found in value.finditer(text):
            if found.group(1):
                return _where(text, found.start(1), line)
    return "(file)" if line is None else f"line {line}"


def depth_problem(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when `value` nests lists and dicts more than `limit` levels deep."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        deeper: list[Any] = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            deeper.extend(child for child in children if isinstance(child, (dict, list)))
        level = deeper
    return False


def _raw_decode(
    text: str, start: int, max_depth: int = MAX_DEPTH, max_int_digits: int = MAX_INT_DIGITS
) -> tuple[Any, int]:
    """The JSON value at `start` and where it ends; `StrictJSONError` for a value a strict
    rule refuses, `json.JSONDecodeError` for text that is not JSON."""
    try:
        value, end = _decoder(max_int_digits).raw_decode(text, start)
    except RecursionError:
        raise _too_deep(max_depth) from None
    except (json.JSONDecodeError, StrictJSONError):
        raise
    except ValueError as exc:  # Python's bound on integer digits
        if "digits" not in str(exc):
            raise
        raise _too_long(MAX_INT_DIGITS) from None
    piece = text[start:end]
    if piece.count("[") + piece.count("{") > max_depth and depth_problem(value, max_depth):
        raise _too_deep(max_depth)
    if (lone := lone_surrogate(text, start, end, value)) is not None:
        found = f"a lone surrogate escape {lone[1]} in a string"
        raise StrictJSONError("text UTF-8 can encode", found, at=lone[0])
    return value, end


def loads_strict(text: str, *, max_depth: int, max_int_digits: int) -> Any:
    """One JSON value from text that came from outside (an endpoint's reply), within tighter
    bounds than a file: `StrictJSONError` or `json.JSONDecodeError` when refused."""
    value, end = _raw_decode(text, _skip_space(text, 0), max_depth, max_int_digits)
    if _skip_space(text, end) < len(text):
        raise json.JSONDecodeError("Extra data", text, _skip_space(text, end))
    return value


def _decode(text: str, label: str, line: int | None, start: int) -> tuple[Any, int]:
    try:
        return _raw_decode(text, start)
    except json.JSONDecodeError as exc:
        found, at = _plain(exc.msg), exc.pos
        if exc.msg.startswith("Expecting") and not text[at:].strip():
            if line is None:
                found = "the end of the file (the JSON is cut short)"
            else:  # where the line's text ends, not the start of the next line
                found = "the end of the line (the JSON is cut short: a JSONL line holds one record)"
                at = len(text.rstrip("\r\n"))
        raise file_problem(label, "valid JSON", found, _where(text, at, line)) from None
    except StrictJSONError as exc:
        place = _second_key(text, start) if exc.twice else exc.at
        where = _locate(text, exc.token, line) if place is None else _where(text, place, line)
        raise file_problem(label, exc.expected, exc.found, where) from None


def _second_key(text: str, start: int) -> int | None:
    """Where the JSON value at `start` first writes a key a second time in one object, the
    object that ends first (as the decoder checks each object when it ends); None when no
    key is. Read again only for the message: the decoder gives no place for it."""
    plain = json.JSONDecoder()  # this walk reads no number and checks no rule

    def walk(at: int) -> int:  # the end of the value at `at`; raises _Twice
        at = _skip_space(text, at)
        if text[at] not in "{[":
            return plain.raw_decode(text, at)[1]
        closing = "}" if text[at] == "{" else "]"
        seen: set[str] = set()
        twice = None
        at = _skip_space(text, at + 1)
        while text[at] != closing:
            if closing == "}":
                key, end = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
                if key in seen and twice is None:
                    twice = at
                seen.add(key)
                at = _skip_space(text, end) + 1  # past the colon
            at = _skip_space(text, walk(at))
            at = _skip_space(text, at + (text[at] == ","))
        if twice is not None:
            raise _Twice(twice)
        return at + 1

    try:
        walk(start)
    except _Twice as found:
        return found.at
    except (ValueError, IndexError, RecursionError):  # refused first, or too deep: no place
        return None
    return None


class _Twice(Exception):
    def __init__(self, at: int) -> None:
        self.at = at


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def parse_json(text: str, label: str, line: int | None = None) -> Any:
    """Parse one JSON value strictly; `line`: the text is that line of a JSONL file."""
    value, end = _decode(text, label, line, _skip_space(text, 0))
    after = _skip_space(text, end)
    if after < len(text):
        if line is not None and "\r" in text[end:after]:
            # JSON lines separated by CR alone (old Mac line ends) read as one line
            crs = text.count("\r")
            found = f"one line holding {crs} CR characters (old Mac line ends)"
            raise file_problem(label, "LF or CRLF line ends", found, f"line {line}")
        raise file_problem(label, "valid JSON", _plain("Extra data"), _where(text, after, line))
    return value


def parse_json_values(
    text: str, label: str, problems: ProblemCollector | None = None
) -> Iterator[tuple[int, Any]]:
    """(line, value) of JSON values written one after another (JSON lines or indented
    objects), each parsed strictly. With `problems`, a value that does not parse is added to
    it and the reading goes on at the next line starting with `{` or `[` (the next JSON line,
    or the next top-level indented object); without, it is raised."""
    position = _skip_space(text, 0)
    while position < len(text):
        row = text.count("\n", 0, position) + 1
        try:
            value, position = _decode(text, label, None, position)
        except InputError as first:
            if problems is None:
                raise
            found = _NEXT_VALUE.search(text, position + 1)
            resume = found.start() + 1 if found else len(text)
            try:  # placed within the value alone, so a refused token is found in it
                parse_json(text[position:resume], label, row)
            except InputError as refused:
                problems.extend(refused.problems)
            else:
                problems.extend(first.problems)
            position = _skip_space(text, resume)
            continue
        yield row, value
        position = _skip_space(text, position)


_NEXT_VALUE = re.compile(r"\n[\[{]")


def _file_refusal(label: str, refused: StrictJSONError) -> InputError:
    return file_problem(label, refused.expected, refused.found, "(file)")


def parse_toml(text: str, label: str, refused: list[Problem] | None = None) -> dict[str, Any]:
    """Parse one TOML document strictly (finite floats, bounded integers and depth); a number
    that is not finite is raised, or added to `refused` when given (the caller checks on)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        at = re.search(r"\(at line (\d+), column (\d+)\)$", message)
        found = message[: at.start()].strip() if at else message
        where = f"line {at.group(1)} column {at.group(2)}" if at else "(file)"
        raise file_problem(label, "valid TOML", found, where) from None
    except RecursionError:
        raise _file_refusal(label, _too_deep(MAX_DEPTH)) from None
    except ValueError as exc:
        if "digits" not in str(exc):
            raise
        raise _file_refusal(label, _too_long(MAX_INT_DIGITS)) from None
    if depth_problem(data):
        raise _file_refusal(label, _too_deep(MAX_DEPTH))
    stack: list[tuple[str, Any]] = [("", data)]
    problems = []  # every number that is not finite, in document order
    while stack:
        where, item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            word = "NaN" if item != item else ("Infinity" if item > 0 else "-Infinity")
            problems.append(Problem(label, None, where or "(file)", FINITE, word))
        if isinstance(item, dict):
            pairs = [(f"{where}.{key}" if where else key, v) for key, v in item.items()]
            stack.extend(reversed(pairs))  # popped in document order
        elif isinstance(item, list):
            stack.extend(reversed([(f"{where}[{i}]", v) for i, v in enumerate(item)]))
    if problems:
        if refused is None:
            raise InputError(problems)
        refused += problems
    return data
