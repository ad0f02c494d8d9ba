"""Cut-offs (`-k`, `name@k`): one parser with one range for every command and file."""

from __future__ import annotations

from ..errors import InputError, Problem
from ..fileio import CUTOFF_RANGE as CUTOFF_RANGE, MAX_CUTOFF as MAX_CUTOFF

CUTOFF_EXPECTED = CUTOFF_RANGE.expected()
"""The `expected` text of every cut-off problem."""


def parse_cutoff(raw: str, source: str = "<command line>", field: str = "-k") -> int:
    """A cut-off written as text (`ndcg@10`): ASCII digits only, 1..MAX_CUTOFF, else
    `InputError`."""
    return _checked(_digits(raw), raw, source, field)


def _digits(text: str) -> int | None:
    # str.isdigit also accepts superscripts and other scripts' digits, which int() refuses
    # or reads differently: only ASCII digits are a cut-off. The length test keeps int()
    # from converting thousands of digits.
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_CUTOFF)):
        return None
    return int(text)


def _checked(value: float | None, raw: object, source: str, field: str) -> int:
    if value is None or not 1 <= value <= MAX_CUTOFF:
        raise InputError([Problem(source, None, field, CUTOFF_EXPECTED, repr(raw))])
    return value if isinstance(value, int) else int(value)


def parse_k(raw: str | int | float, source: str = "<command line>", field: str = "-k") -> int:
    """Return k as an int; 0, negatives, fractions, nan, inf, non-numbers and values past
    `MAX_CUTOFF` are refused."""
    if isinstance(raw, (bool, int, float)):
        whole = not isinstance(raw, bool) and (isinstance(raw, int) or raw.is_integer())
        return _checked(raw if whole else None, raw, source, field)
    if not isinstance(raw, str):  # a list, None...: refused as a non-number, not an error inside
        return _checked(None, raw, source, field)
    text = raw.strip()
    return _checked(_digits(text[1:] if text.startswith("+") else text), raw, source, field)
