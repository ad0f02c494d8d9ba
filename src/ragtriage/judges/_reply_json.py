"""The bounds of JSON an endpoint sends back: tighter than a file's, parsed by the one strict
decoder (`ragtriage.fileio.loads_strict`), so a hostile reply becomes `cannot_judge` with a
reason and never crashes a run or a rerun from the cache."""

from __future__ import annotations

from typing import Any

from ..fileio import loads_strict

REPLY_MAX_DEPTH = 32
"""Deepest nesting of arrays/objects accepted in a reply (a judge answer needs 4)."""
REPLY_MAX_INT_DIGITS = 20
"""Longest integer accepted in a reply (token counts and IDs fit easily)."""


def reply_json(text: str) -> Any:
    """Parse a reply strictly: `StrictJSONError` for duplicate keys, non-finite numbers, long
    integers, deep nesting or lone surrogates; `json.JSONDecodeError` for text that is not
    JSON."""
    return loads_strict(text, max_depth=REPLY_MAX_DEPTH, max_int_digits=REPLY_MAX_INT_DIGITS)
