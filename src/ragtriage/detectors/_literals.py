"""Strings every match of an expression contains, read from its parse tree (as RE2's prefilter
does): `re` tries a case-insensitive pattern at every position (~1 us a character for the
injection rules), a substring test costs a fraction of that."""

from __future__ import annotations

import importlib
import re
from typing import Any

_parser: Any = importlib.import_module("re._parser")  # the parser `re.compile` uses (no stub)
_CAP = 32
"""Most strings a set may hold; a longer cross-product falls back to a shorter factor."""

# `re.IGNORECASE` equates two characters with the same simple lowercase, and the pairs of
# `re._casefix` (ı i, ſ s, ς σ, ...), mapped here to one of each group; `str.lower` turns İ
# into i + U+0307, dropped. The tests prove by brute force that characters `re` equates fold
# alike, so a text that matches holds, folded, one of the folded strings.
_FOLD = str.maketrans(
    "\u0131\u017f\u03bc\u03b9\u1fbe\u1fd3\u1fe3\u03d0\u03f5\u03d1\u03f0\u03d6\u03f1\u03c3\u03d5"
    "\u1c80\u1c81\u1c82\u1c83\u1c84\u1c85\u1c86\u1c87\ua64b\u1e9b\ufb06",
    "is\xb5\u0345\u0345\u0390\u03b0\u03b2\u03b5\u03b8\u03ba\u03c0\u03c1\u03c2\u03c6"
    "\u0432\u0434\u043e\u0441\u0442\u0442\u044a\u0463\u1c88\u1e61\ufb05",
    "\u0307",
)
_FOLDED = re.compile(f"[{re.escape(''.join(map(chr, _FOLD)))}]")  # searched faster than translated

Strings = frozenset[str]


def fold(text: str) -> str:
    """`text` lowercased, the characters `re.IGNORECASE` equates written alike."""
    low = text.lower()
    return low.translate(_FOLD) if not low.isascii() and _FOLDED.search(low) else low


def needed_literals(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Folded strings one of which every match of `pattern` contains; None when unknown."""
    exact, needed = _sequence(_parser.parse(pattern.pattern, pattern.flags))
    folded = {fold(s) for s in _better(exact, needed) or ()}
    if not folded or "" in folded:
        return None
    return tuple(sorted(s for s in folded if not any(t != s and t in s for t in folded)))


def _better(a: Strings | None, b: Strings | None) -> Strings | None:
    """The set whose shortest string is longer (then the smaller set); ignores useless sets."""
    usable = [s for s in (a, b) if s and "" not in s]
    return max(usable, key=lambda s: (min(map(len, s)), -len(s)), default=None)


def _product(a: Strings, b: Strings) -> Strings | None:
    return frozenset(x + y for x in a for y in b) if len(a) * len(b) <= _CAP else None


def _sequence(items: Any) -> tuple[Strings | None, Strings | None]:
    """(every string the items match in turn, or None; strings one of which each match holds)."""
    exact: Strings | None = frozenset({""})
    needed: Strings | None = None
    current: Strings = frozenset({""})
    for op, av in items:
        node, node_needed = _node(str(op), av)
        joined = _product(current, node) if node is not None else None
        if joined is not None:
            current = joined
            continue
        exact = None
        needed = _better(needed, _better(current, node_needed if node is None else node))
        current = node if node is not None else frozenset({""})
    return (current, None) if exact is not None else (None, _better(needed, current))


def _node(op: str, av: Any) -> tuple[Strings | None, Strings | None]:
    if op == "LITERAL":
        return frozenset({chr(av)}), None
    if op in ("AT", "ASSERT", "ASSERT_NOT"):  # zero-width
        return frozenset({""}), None
    if op == "IN" and len(av) <= _CAP and all(str(kind) == "LITERAL" for kind, _ in av):
        return frozenset(chr(code) for _, code in av), None
    if op in ("SUBPATTERN", "ATOMIC_GROUP"):
        return _sequence(av[3] if op == "SUBPATTERN" else av)
    if op == "BRANCH":
        parts = [_sequence(items) for items in av[1]]
        if all(exact is not None for exact, _ in parts):
            union = frozenset().union(*(exact for exact, _ in parts if exact is not None))
            if len(union) <= _CAP:
                return union, None
        options = [_better(exact, needed) for exact, needed in parts]
        usable = [s for s in options if s]
        return None, (frozenset().union(*usable) if len(usable) == len(options) else None)
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        least, most, items = av
        exact, needed = _sequence(items)
        if least == 0:
            return (exact | {""} if exact is not None and most == 1 else None), None
        if exact is None:
            return None, needed
        copies: Strings | None = frozenset({""})
        for _ in range(min(least, 4)):  # a match starts with `least` matches of the item
            copies = _product(copies, exact) if copies is not None else None
        if copies is None:
            return None, exact
        return (copies, None) if least == most <= 4 else (None, copies)
    return None, None
