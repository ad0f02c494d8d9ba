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

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

from .._optional import extra_module, has_extra

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.compute as pc
else:  # imported at first use: the default install has no pyarrow
    pa = extra_module("pyarrow", "trec", "writing a table of records")
    pc = extra_module("pyarrow.compute", "trec", "writing a table of records")

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


class _Float(float):
    """A float orjson writes otherwise than `json` (`json_float`): orjson hands a float of a
    type of its own to `default` (`_float`, Python's text), `json` writes it as a float."""


def json_text(data: Any) -> str:
    """Deterministic JSON text: sorted keys, UTF-8 kept readable, two-space indent, trailing
    newline; the same text as `json.dumps(data, sort_keys=True, ensure_ascii=False,
    indent=2) + "\\n"`."""
    try:
        fixed = _list([data])
    except (_NotPlain, RecursionError):
        return _json_dumps(data)
    value = data if fixed is None else fixed[0]
    written = plain_json(value)
    return written if isinstance(written, str) else written.decode("utf-8")


def plain_json(data: Any) -> bytes | str:
    """`json_text(data)` in one orjson call that does not look at each value first, for data
    its caller made of exactly dict, list, tuple, str, int, bool, None and floats as
    `json_float` gives them: orjson's UTF-8 bytes (never a lone surrogate: orjson refuses
    one). What orjson refuses (a lone surrogate, an int beyond 64 bits, a key not a str,
    nesting beyond its limit) is written by `json`, and given as its text (a str, which may
    hold a lone surrogate)."""
    try:
        return orjson.dumps(data, default=_float, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return _json_dumps(data)


def json_float(value: float) -> float:
    """`value`, or when orjson writes it otherwise than `json` (see the module docstring) a
    float of a type of its own, which `plain_json` writes as `json` does."""
    size = value if value >= 0.0 else -value  # NaN stays NaN: fails both tests
    return value if _HIGH <= size < _INF or size < _LOW else _Float(value)


def _json_dumps(data: Any) -> str:
    """The text `json` itself writes (for what this writer leaves to it)."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def json_line(data: Any) -> str:
    """One JSONL record: sorted keys, UTF-8 kept readable, on one line (without its newline)."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def content_hash(value: object) -> str:
    """SHA-256 of a value's canonical JSON (sorted keys, UTF-8, no spaces)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def json_text_table(
    data: dict[str, Any],
    key: str,
    texts: Mapping[str, Sequence[str]],
    numbers: Mapping[str, np.ndarray],
) -> str:
    """`json_text` of `data` with one more top-level `key`: a list of flat records, one per
    row of the columns (`texts`: strings; `numbers`: float arrays, NaN written as null).

    Byte for byte `json_text({**data, key: rows})` with `rows[i] = {name: column[i]}`, but
    no record is made: each column is written by one call (orjson for a float column, one
    join for a text column) and the records are joined from those texts by pyarrow
    (`_paste`), so a long table costs no Python work per record. Text that JSON escapes
    (quotes, backslashes, control characters) or that is not exactly `str`, or no pyarrow
    installed: the records are made and written as `json_text` writes them.
    """
    if key in data or set(texts) & set(numbers):
        raise ValueError(f"{key!r} and the column names must be new and distinct")
    sizes = {len(column) for column in texts.values()} | {len(a) for a in numbers.values()}
    if len(sizes) > 1:
        raise ValueError(f"the columns of {key!r} must have one length, not {sorted(sizes)}")
    head = json_text({**data, key: []})
    if not sizes or not sizes.pop():
        return head
    if not has_extra("trec"):  # the records are made and written by `json_text`
        return json_text({**data, key: _records(texts, numbers)})
    columns: dict[str, tuple[bytes, bool]] = {}
    for name, strings in texts.items():
        text = _plain_texts(strings)
        if text is None:  # `json` decides (escapes, lone surrogates, other types)
            return json_text({**data, key: _records(texts, numbers)})
        columns[name] = (text, True)
    for name, given in numbers.items():
        columns[name] = (_number_texts(np.asarray(given, dtype=np.float64)), False)
    body = _paste({name: columns[name] for name in sorted(columns)})
    # Strings hold no raw line break, so this can only be the top-level key.
    marker = f"\n  {json.dumps(key, ensure_ascii=False)}: []"
    at = head.index(marker) + len(marker) - 1
    return "".join((head[:at], "\n", body, "\n  ", head[at:]))


def _plain_texts(strings: Sequence[str]) -> bytes | None:
    """The strings as UTF-8, each followed by a line break, when every one is a `str` that
    JSON writes as itself between quotes; None otherwise."""
    if set(map(type, strings)) != {str}:
        return None
    try:
        encoded = ("\n".join(strings) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return None
    raw = np.frombuffer(encoded, np.uint8)
    escaped = int(np.count_nonzero(raw < 0x20)) != len(strings)  # the breaks we added
    if escaped or encoded.find(b'"') >= 0 or encoded.find(b"\\") >= 0:
        return None
    return encoded


def _number_texts(values: np.ndarray) -> bytes:
    """The floats as `json` writes them (NaN as null), each followed by a line break.

    orjson writes every float but those `_float` rewrites as Python's repr does; those are
    found on the array and only they become Python objects of their own."""
    written: list[Any] = values.tolist()
    for row in np.flatnonzero(np.isnan(values)).tolist():
        written[row] = None
    size = np.abs(values)
    for row in np.flatnonzero(((size >= _LOW) & (size < _HIGH)) | (size == _INF)).tolist():
        written[row] = _float(written[row])
    # No float's text holds a comma: the list's commas separate the values.
    return orjson.dumps(written)[1:-1].replace(b",", b"\n") + b"\n"


def _paste(columns: Mapping[str, tuple[bytes, bool]]) -> str:
    """The records' text (indented as items of a top-level list, without the brackets)
    from each column's values (`(text, quoted)`: one value per line, quoted: a string),
    joined record by record in pyarrow."""
    names = list(columns)
    keys = [json.dumps(name, ensure_ascii=False) for name in names]
    quote = ['"' if columns[name][1] else "" for name in names]
    parts: list[Any] = [f"    {{\n      {keys[0]}: {quote[0]}".encode()]
    for index, name in enumerate(names):
        parts.append(_values(columns[name][0]))
        if index + 1 < len(names):
            after = f"{quote[index]},\n      {keys[index + 1]}: {quote[index + 1]}"
        else:
            after = f"{quote[index]}\n    }},\n"
        parts.append(after.encode())
    scalars = [_scalar(part) if type(part) is bytes else part for part in parts]
    joined = pc.binary_join_element_wise(*scalars, _scalar(b""))
    offsets = np.frombuffer(joined.buffers()[1], np.int64)
    first, stop = int(offsets[joined.offset]), int(offsets[joined.offset + len(joined)])
    return str(memoryview(joined.buffers()[2])[first : stop - len(b",\n")], "utf-8")


def _scalar(data: bytes) -> pa.Scalar:
    """A large binary scalar made from its buffers (`pa.scalar` imports pandas when
    installed); large: 64-bit offsets, so a table of any size fits the joined text."""
    offsets = pa.py_buffer(np.array([0, len(data)], np.int64))
    return pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, pa.py_buffer(data)])[0]


def _values(text: bytes) -> pa.Array:
    """Lines (each ended by a line break) as a binary array, without the breaks."""
    ends = np.flatnonzero(np.frombuffer(text, np.uint8) == 0x0A)
    offsets = np.concatenate(([0], ends + 1)).astype(np.int64)
    lines = pa.Array.from_buffers(
        pa.large_binary(), ends.size, [None, pa.py_buffer(offsets), pa.py_buffer(text)]
    )
    return pc.binary_slice(lines, 0, -1)


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
            new: Any = json_float(value)
            if new is value:
                continue
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

