"""The one writer of indented JSON text: every report, label file, schema and native file.

The text is, byte for byte, what `json.dumps(data, sort_keys=True, ensure_ascii=False,
indent=2) + "\\n"` writes; orjson writes it tens of times faster (with `indent`, CPython's
`json` runs its pure-Python encoder). For the plain JSON types the two agree (same
separators, same string escapes, keys sorted by code point) except for:

- floats of magnitude 1e-9 to 1e-4 (decimal exponent -5 to -9): Python writes `1e-05` and
  `1.5e-07`, orjson `0.00001` and `1.5e-7`. They are written as Python's repr (an
  `orjson.Fragment`); every other finite float is Python's shortest repr in both.
- NaN and infinities: `json` writes `NaN`, `Infinity` and `-Infinity`, orjson `null`. They
  are written as `json` writes them (a fragment).

Every other value is left to `json` itself, for the whole document: a type other than exactly
dict, list, tuple, str, int, float, bool and None (subclasses, enums, anything `json`
refuses), and what orjson refuses (a key that is not exactly a str, an int outside 64 bits, a
lone surrogate, nesting deeper than orjson's limit). So the text never differs from `json`'s,
and a value `json` refuses raises `json`'s own error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import orjson

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
_INF = float("inf")
_LOW = 1e-10
"""Below this, orjson writes floats as Python does (exponents -10 and lower have two
digits); with the bound one decade below the first that differs, every float the writers
disagree on lies in [_LOW, _HIGH) and is rewritten (rewriting an equal one is harmless)."""
_HIGH = 1e-4
"""Python's repr is positional from 1e-4 up, as orjson's is: no float at or above it differs."""


class _NotPlain(Exception):
    """The document holds a value this writer leaves to `json` (see the module docstring)."""


def json_text(data: Any) -> str:
    """Deterministic JSON text: sorted keys, UTF-8 kept readable, two-space indent, trailing
    newline; the same text as `json.dumps(data, sort_keys=True, ensure_ascii=False,
    indent=2) + "\\n"`."""
    try:
        fixed = _list([data])
        value = data if fixed is None else fixed[0]
        return orjson.dumps(value, option=_OPTIONS).decode("utf-8")
    except (_NotPlain, orjson.JSONEncodeError, RecursionError):
        return json.dumps(data, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def json_text_table(
    data: dict[str, Any],
    key: str,
    texts: Mapping[str, Sequence[str]],
    numbers: Mapping[str, np.ndarray],
) -> str:
    """`json_text` of `data` with one more top-level `key`: a list of flat records, one per
    row of the columns (`texts`: strings; `numbers`: float arrays, NaN written as null).

    Byte for byte `json_text({**data, key: rows})` with `rows[i] = {name: column[i]}`; the
    records are written by one orjson call, and only the floats orjson writes otherwise
    (found on the arrays, not value by value) are rewritten, so a long table costs no
    Python work per value.
    """
    if key in data or set(texts) & set(numbers):
        raise ValueError(f"{key!r} and the column names must be new and distinct")
    columns: dict[str, list[Any]] = {name: list(strings) for name, strings in texts.items()}
    if not all(type(text) is str for strings in columns.values() for text in strings):
        return json_text({**data, key: _records(texts, numbers)})  # `json` decides
    for name, given in numbers.items():
        values = np.asarray(given, dtype=np.float64)
        written: list[Any] = values.tolist()
        for row in np.flatnonzero(np.isnan(values)).tolist():
            written[row] = None
        size = np.abs(values)
        for row in np.flatnonzero(((size >= _LOW) & (size < _HIGH)) | (size == _INF)).tolist():
            written[row] = _float(written[row])
        columns[name] = written
    names = tuple(columns)
    records = [dict(zip(names, row, strict=True)) for row in zip(*columns.values(), strict=True)]
    try:
        # Written as the value of a one-key document, the list is already indented as a
        # top-level value: `{\n  "key": [...]\n}`.
        body = orjson.dumps({key: records}, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        start = len(orjson.dumps({key: 0}, option=orjson.OPT_INDENT_2)) - len(b"0\n}")
    except orjson.JSONEncodeError:  # what orjson refuses (a lone surrogate): `json` decides
        return json_text({**data, key: _records(texts, numbers)})
    head = json_text({**data, key: []})
    # Strings hold no raw line break, so this can only be the top-level key.
    marker = f"\n  {json.dumps(key, ensure_ascii=False)}: []"
    at = head.index(marker) + len(marker) - 2
    return head[:at] + body[start:-2].decode("utf-8") + head[at + 2 :]


def _records(
    texts: Mapping[str, Sequence[str]], numbers: Mapping[str, np.ndarray]
) -> list[dict[str, Any]]:
    """The records of `json_text_table` as plain values."""
    plain: dict[str, list[Any]] = {name: list(strings) for name, strings in texts.items()}
    for name, values in numbers.items():
        floats = np.asarray(values, dtype=np.float64).tolist()
        plain[name] = [None if value != value else value for value in floats]
    names = tuple(plain)
    return [dict(zip(names, row, strict=True)) for row in zip(*plain.values(), strict=True)]


def _float(value: float) -> orjson.Fragment:
    """A float orjson writes otherwise (non-finite, or of magnitude in [_LOW, _HIGH)), as
    `json` writes it."""
    if value != value:
        return orjson.Fragment(b"NaN")
    if value == _INF:
        return orjson.Fragment(b"Infinity")
    if value == -_INF:
        return orjson.Fragment(b"-Infinity")
    return orjson.Fragment(float.__repr__(value))


def _scan(values: Iterable[Any]) -> dict[int, Any] | None:
    """Position -> what to write instead, for the values orjson would write otherwise (None
    when there are none); `_NotPlain` for a value of another type."""
    fixes: dict[int, Any] | None = None
    for index, value in enumerate(values):
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None:
            continue
        if kind is float:
            size = value if value >= 0.0 else -value  # NaN stays NaN: fails both tests
            if _HIGH <= size < _INF or size < _LOW:
                continue
            new: Any = _float(value)
        elif kind is dict:
            new = _dict(value)
        elif kind is list or kind is tuple:
            new = _list(value)
        else:
            raise _NotPlain
        if new is not None:
            if fixes is None:
                fixes = {}
            fixes[index] = new
    return fixes


def _list(items: list[Any] | tuple[Any, ...]) -> list[Any] | None:
    """A copy of `items` with the values to rewrite replaced, or None when there are none."""
    fixes = _scan(items)
    if fixes is None:
        return None
    out = list(items)
    for index, new in fixes.items():
        out[index] = new
    return out


def _dict(mapping: dict[Any, Any]) -> dict[Any, Any] | None:
    """Like `_list`, for a dict's values (orjson itself refuses a key that is not a str)."""
    fixes = _scan(mapping.values())
    if fixes is None:
        return None
    out = dict(mapping)
    keys = list(mapping)
    for index, new in fixes.items():
        out[keys[index]] = new
    return out
