"""Strict JSON for what an endpoint sends back: a reply is data from outside, parsed defensively.

Python's `json` accepts duplicate keys (the last wins), NaN and Infinity, floats that overflow
to infinity, integers of thousands of digits (then raises an unexpected `ValueError`) and
nesting deep enough to raise `RecursionError`. A judge reply with any of these is refused here
with a reason, so that it becomes `cannot_judge` and never crashes a run or a rerun from the
cache.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 32
"""Deepest nesting of arrays/objects accepted in a reply (a judge answer needs 4)."""
MAX_INT_DIGITS = 20
"""Longest integer accepted (token counts and IDs fit easily)."""

_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"|[\[\]{}]')


class StrictJSONError(ValueError):
    """The text is not JSON this parser accepts; the message says why."""


def _depth_within(text: str, limit: int) -> bool:
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return False
        elif token in "]}":
            depth -= 1
    return True


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise StrictJSONError(f"duplicate key {key[:40]!r}")
        out[key] = value
    return out


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise StrictJSONError(f"an integer of {len(text.lstrip('-'))} digits")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise StrictJSONError(f"a number out of range ({text[:40]})")
    return value


def _constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not JSON")


def strict_loads(text: str) -> Any:
    """Parse JSON text, refusing duplicate keys, non-finite numbers, huge integers and deep
    nesting with `StrictJSONError`; syntax errors raise `json.JSONDecodeError` as usual."""
    if not _depth_within(text, MAX_DEPTH):
        raise StrictJSONError(f"nested deeper than {MAX_DEPTH} levels")
    return json.loads(
        text,
        object_pairs_hook=_pairs,
        parse_int=_integer,
        parse_float=_float,
        parse_constant=_constant,
    )
