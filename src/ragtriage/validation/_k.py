"""Parsing the cut-off k strictly: a positive integer and nothing else."""

from __future__ import annotations

from ..errors import InputError, Problem


def parse_k(raw: str | int | float, source: str = "<command line>", field: str = "-k") -> int:
    """Return k as an int; 0, negatives, fractions, nan, inf and non-numbers are refused."""
    if isinstance(raw, bool):
        raise InputError([Problem(source, None, field, "a positive integer", repr(raw))])
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, float):
        if raw != raw or raw in (float("inf"), float("-inf")) or not raw.is_integer():
            raise InputError([Problem(source, None, field, "a positive integer", repr(raw))])
        value = int(raw)
    else:
        text = raw.strip()
        if not text.lstrip("+-").isdigit():
            raise InputError([Problem(source, None, field, "a positive integer", repr(raw))])
        value = int(text)
    if value <= 0:
        raise InputError([Problem(source, None, field, "a positive integer", repr(raw))])
    return value
