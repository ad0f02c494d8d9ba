"""Lone surrogate escapes (`"\\ud800"`) in JSON text: no output could encode the string they
make, so the strict reader refuses them, at the place they are written."""

from __future__ import annotations

import re
from typing import Any

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]", re.ASCII)
_SURROGATE_AT = re.compile(r"(\\+)u([dD][89a-fA-F][0-9a-fA-F]{2})", re.ASCII)
_LOW_SURROGATE = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}", re.ASCII)


def lone_surrogate(text: str, start: int, end: int, value: Any) -> tuple[int | None, str] | None:
    """Where the first lone surrogate escape of `text[start:end]`, the text of `value`, is (its
    backslash; None when not found in the text) and the escape; None when `value` holds
    none. The text is searched only once the value is known to hold one."""
    if not _SURROGATE_ESCAPE.search(text, start, end):
        return None
    bad = _first_surrogate(value)
    if bad is None:
        return None
    return _in_text(text, start, end) or (None, bad)


def _first_surrogate(value: Any) -> str | None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                return f"\\u{ord(item[exc.start]):04x}"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _in_text(text: str, start: int, end: int) -> tuple[int, str] | None:
    """The first lone surrogate escape of `text[start:end]` as the decoder reads escapes: a
    high one followed by a low one's escape is a pair; a backslash escaped by another starts
    none."""
    paired = start
    for found in _SURROGATE_AT.finditer(text, start, end):
        at = found.end(1) - 1  # the backslash of `\u`
        if len(found.group(1)) % 2 == 0 or at < paired:
            continue
        code = int(found.group(2), 16)
        if code < 0xDC00 and _LOW_SURROGATE.match(text, found.end()):
            paired = found.end() + 6
            continue
        return at, f"\\u{code:04x}"
    return None
