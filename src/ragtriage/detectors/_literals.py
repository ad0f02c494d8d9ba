r"""What every match of an expression holds, read from its parse tree (as RE2's prefilter
does), so that a text without it is not searched: `re` tries a pattern at every position (~1
us a character for a case-insensitive injection rule), while one Aho-Corasick pass finds
every string of a rule set a text holds. A sequence needs all its factors (`you`, `are` and
`now` for `you\s+are\s+now`), an alternation one of its branches. Also from the tree: the
fewest digits every match consumes (`needed_digits`), and a pattern that is one alternation
as its branches apart (`branch_patterns`), each searched only where its own strings are."""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterable, Set as AbstractSet
from typing import Any, NamedTuple

import ahocorasick

_parser: Any = importlib.import_module("re._parser")  # the parser `re.compile` uses (no stub)
_compiler: Any = importlib.import_module("re._compiler")  # and its compiler
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
Need = frozenset[frozenset[Strings]]
"""Alternatives one of which every match satisfies; an alternative: sets each of which gives
a string the match holds (one of the set's)."""
_ANY: Need = frozenset({frozenset()})


def fold(text: str) -> str:
    """`text` lowercased, the characters `re.IGNORECASE` equates written alike."""
    low = text.lower()
    return low.translate(_FOLD) if not low.isascii() and _FOLDED.search(low) else low


class Needed(NamedTuple):
    """Folded strings every match of an expression holds."""

    first: tuple[str, ...]
    """One of these (checked first: most texts hold none)."""
    alternatives: tuple[tuple[tuple[str, ...], ...], ...]
    """And, for one of the alternatives, one string of each of its sets."""


def needed_literals(pattern: re.Pattern[str]) -> Needed | None:
    """What every match of `pattern` holds; None when unknown."""
    return _needed(_parser.parse(pattern.pattern, pattern.flags))


def branch_literals(pattern: re.Pattern[str]) -> tuple[Needed | None, ...]:
    """What every match of each branch holds, for a pattern that is one alternation of
    branches (`a|b|c`); empty for any other. A text a rule admits is then searched only for
    the branches it admits (`branch_patterns`): one branch of a rule may pass on ordinary
    prose, where searching all of them at every position costs ten times as much."""
    return tuple(_needed(branch) for branch in _branches(pattern))


@functools.cache
def branch_patterns(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], ...]:
    """The branches of `branch_literals`, each compiled apart, with the pattern's flags and
    group numbers. The leftmost match of the pattern is the leftmost of its branches' and, of
    branches matching at one position, the first's, with the same span (the branch is
    tried there as the pattern tries it)."""
    return tuple(_compiler.compile(branch, pattern.flags) for branch in _branches(pattern))


def _branches(pattern: re.Pattern[str]) -> list[Any]:
    """The parse tree's branches when it is one alternation between items that match one way
    (the parser factors a common `\b` out of `\ba|\bb`: each branch gets it back). After a
    prefix that could match more ways, the alternation tries each branch with each of them
    before the next branch, so the branches apart could find another match."""
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    ops = [str(op) for op, _ in parsed.data]
    if ops.count("BRANCH") != 1:
        return []
    at = ops.index("BRANCH")
    if not set(ops[:at]) <= {"AT", "LITERAL", "NOT_LITERAL", "IN", "ANY"}:
        return []
    head, tail = parsed.data[:at], parsed.data[at + 1 :]
    return [
        _parser.SubPattern(parsed.state, [*head, *branch.data, *tail])
        for branch in parsed.data[at][1][1]
    ]


def _needed(parsed: Any) -> Needed | None:
    exact, need = _sequence(parsed)
    need = need if exact is None else _set(exact)
    need = _or({g for group in alt for g in _folded(group)} - {frozenset({""})} for alt in need)
    first = _union(need)
    if first is None:
        return None
    alts = {  # in an alternative, the set a text most likely lacks first
        tuple(sorted((tuple(sorted(g)) for g in alt), key=_rank, reverse=True)) for alt in need
    }
    return Needed(tuple(sorted(_pruned(first))), tuple(sorted(alts)))


def admits(needed: Needed | None, held: AbstractSet[str]) -> bool:
    """Whether a text may match: `held` (the strings of the rule set the folded text holds,
    `Prefilter.held`) holds one of `needed.first` and, for one alternative, one string of
    each of its sets."""
    if needed is None:
        return True
    if held.isdisjoint(needed.first):
        return False
    for alt in needed.alternatives:
        for group in alt:
            if held.isdisjoint(group):
                break
        else:
            return True
    return False


class Prefilter:
    """Every string the literals of a rule set mention, found in a folded text in one pass
    (an Aho-Corasick automaton, built once per rule set)."""

    def __init__(self, needs: Iterable[Needed | None]) -> None:
        self.words = frozenset(s for n in needs if n is not None for s in (*n.first, *_groups(n)))
        """Every string the literals mention (`needed_literals` gives no empty string)."""
        # The automaton yields every occurrence, of a space or an `a` hundreds a text; `in`
        # stops at a character's first (the sensitive detectors' 31 strings, 13 of them
        # characters, in 1,000 characters of English: 51 us all in the automaton, 12 us so).
        self._chars = tuple(sorted(w for w in self.words if len(w) == 1))
        self._automaton: Any = None  # pyahocorasick ships no type hints
        longer = sorted(self.words.difference(self._chars))
        if longer:
            self._automaton = ahocorasick.Automaton()
            for word in longer:
                self._automaton.add_word(word, word)
            self._automaton.make_automaton()

    def held(self, folded: str) -> frozenset[str]:
        """The rule set's strings `s` with `s in folded` (overlapping ones included)."""
        found = [c for c in self._chars if c in folded]
        if self._automaton is not None:
            found += [word for _, word in self._automaton.iter(folded)]
        return frozenset(found)


class FirstStrings:
    """Which items of a list (a rule set's rules, each with its `Needed` or None) a text may
    match, from the strings it holds: `admits` refuses an item none of whose `first` strings
    the text holds, so only the others are asked (most texts hold none of most items')."""

    def __init__(self, needs: Iterable[Needed | None]) -> None:
        self._always: list[int] = []
        """The items without literals (any text may match them)."""
        self._items: dict[str, list[int]] = {}
        """Per string: the items it is one of the `first` strings of."""
        for n, needed in enumerate(needs):
            if needed is None:
                self._always.append(n)
            else:
                for string in needed.first:
                    self._items.setdefault(string, []).append(n)

    def items(self, *held: AbstractSet[str]) -> list[int]:
        """The positions, ascending, of the items a text may match whose forms hold `held`
        (`Prefilter.held` of each): `admits` refuses every other item for each of them."""
        found = set(self._always)
        items = self._items
        for strings in held:
            for string in items.keys() & strings:
                found.update(items[string])
        return sorted(found)


def _groups(needed: Needed) -> Iterable[str]:
    return (s for alt in needed.alternatives for group in alt for s in group)


def _pruned(strings: Iterable[str]) -> Strings:
    """`strings` without one that holds another (which it implies)."""
    every = set(strings)
    return frozenset(s for s in every if not any(t != s and t in s for t in every))


def _folded(strings: Strings) -> frozenset[Strings]:
    """`strings` folded and pruned; for more than 4 strings that share strings of 3 characters
    or more, those (each searched once, not each string)."""
    kept = _pruned(map(fold, strings))
    short = min(kept, key=len)
    shared = {short[i:j] for i in range(len(short)) for j in range(i + 3, len(short) + 1)}
    shared = {c for c in shared if all(c in s for s in kept)}
    if len(kept) > 4 and shared:
        longest = {c for c in shared if not any(c != d and c in d for d in shared)}
        return frozenset(frozenset({c}) for c in longest)
    return frozenset({kept})


def _product(a: Strings, b: Strings) -> Strings | None:
    return frozenset(x + y for x in a for y in b) if len(a) * len(b) <= _CAP else None


def _rank(strings: Iterable[str]) -> tuple[int, int, list[str]]:
    """Higher for a set a text more likely lacks: a longer shortest string, fewer strings."""
    ordered = sorted(strings)
    return min(map(len, ordered)), -len(ordered), ordered


def _set(strings: Strings | None) -> Need:
    """The need for one of `strings` (none when one of them is empty)."""
    return _or([[strings]]) if strings and "" not in strings else _ANY


def _or(alts: Iterable[Iterable[Strings]]) -> Need:
    """The alternatives, without one that holds all the sets of another (it adds nothing)."""
    every = {frozenset(alt) for alt in alts}
    if frozenset() in every:
        return _ANY
    return frozenset(a for a in every if not any(b < a for b in every))


def _one(need: Need) -> Need:
    return _set(_union(need))


def _union(need: Need) -> Strings | None:
    """One set implied by `need`: a union of sets, one of each alternative, chosen greedily
    (fairly long strings, then the set most alternatives share, then the smallest)."""
    chosen: Strings = frozenset()
    while need:
        if frozenset() in need:
            return None
        groups = {g for alt in need for g in alt}
        best = max(groups, key=lambda g: (min(4, _rank(g)[0]), sum(g in a for a in need), _rank(g)))
        chosen, need = chosen | best, frozenset(alt for alt in need if best not in alt)
    return chosen


def _and(a: Need, b: Need) -> Need:
    if len(a) * len(b) > _CAP:  # too many alternatives: the longer one gives one set
        return _and(_one(a), b) if len(a) >= len(b) else _and(a, _one(b))
    return _or(x | y for x in a for y in b)


def _sequence(items: Any) -> tuple[Strings | None, Need]:
    """(every string the items match in turn, or None; what each match holds)."""
    need, exact = _ANY, True
    current: Strings = frozenset({""})
    for op, av in items:
        node, node_need = _node(str(op), av)
        joined = _product(current, node) if node is not None else None
        if joined is not None:
            current = joined
            continue
        exact = False
        need = _and(need, _set(current))
        if node is None:
            need = _and(need, node_need)
        current = node if node is not None else frozenset({""})
    return (current, _ANY) if exact else (None, _and(need, _set(current)))


def _node(op: str, av: Any) -> tuple[Strings | None, Need]:
    if op == "LITERAL":
        return frozenset({chr(av)}), _ANY
    if op in ("AT", "ASSERT", "ASSERT_NOT"):  # zero-width
        return frozenset({""}), _ANY
    if op == "IN" and len(av) <= _CAP and all(str(kind) == "LITERAL" for kind, _ in av):
        return frozenset(chr(code) for _, code in av), _ANY
    if op in ("SUBPATTERN", "ATOMIC_GROUP"):
        return _sequence(av[3] if op == "SUBPATTERN" else av)
    if op == "BRANCH":
        parts = [_sequence(items) for items in av[1]]
        exacts = [exact for exact, _ in parts if exact is not None]
        union = frozenset().union(*exacts)
        if len(exacts) == len(parts) and len(union) <= _CAP:
            return union, _ANY
        needs = [need for exact, need in parts if exact is None]
        needs = sorted(needs + [_set(union)] * any(exacts), key=len)
        while len(needs[-1]) > 1 and sum(map(len, needs)) > _CAP:  # the longest gives one set
            needs = sorted([*needs[:-1], _one(needs[-1])], key=len)
        alts = _or(alt for need in needs for alt in need)
        return None, _one(alts) if len(alts) > _CAP else alts
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        least, most, items = av
        exact, need = _sequence(items)
        if least == 0:
            return (exact | {""} if exact is not None and most == 1 else None), _ANY
        if exact is None:
            return None, need
        copies: Strings | None = frozenset({""})
        for _ in range(min(least, 4)):  # a match starts with `least` matches of the item
            copies = _product(copies, exact) if copies is not None else None
        if copies is None:
            return None, _set(exact)
        return (copies, _ANY) if least == most <= 4 else (None, _set(copies))
    return None, _ANY


def may_match_empty(pattern: re.Pattern[str]) -> bool:
    """Whether `pattern` can match an empty string in some text: the fewest characters a
    match consumes, read from its parse tree, is 0 (`a*`, a look-around alone, `x|`)."""
    return int(_parser.parse(pattern.pattern, pattern.flags).getwidth()[0]) == 0


def needed_digits(pattern: re.Pattern[str]) -> int:
    """The fewest decimal digits (`\\d`, Unicode category Nd) that every match of `pattern`
    consumes: a text with fewer cannot match (a card number needs 13, say, wherever the
    separators fall)."""
    return _digits(_parser.parse(pattern.pattern, pattern.flags))


def _digits(items: Any) -> int:
    total = 0
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            total += chr(av).isdecimal()
        elif name == "IN":  # a class of digits only: `\d`, `[0-9]`, `[13579]`
            total += all(_digit_item(str(kind), value) for kind, value in av)
        elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
            total += _digits(av[3] if name == "SUBPATTERN" else av)
        elif name == "BRANCH":
            total += min(_digits(branch) for branch in av[1])
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            total += av[0] * _digits(av[2])
        # Anything else consumes no digit for certain: a look-around, an anchor, a back
        # reference, a negated class, any character.
    return total


def _digit_item(kind: str, value: Any) -> bool:
    if kind == "LITERAL":
        return chr(value).isdecimal()
    if kind == "RANGE":
        return all(chr(c).isdecimal() for c in range(value[0], value[1] + 1))
    return kind == "CATEGORY" and str(value) == "CATEGORY_DIGIT"


_DIGIT = re.compile(r"\d")
_ASCII_DIGITS = b"0123456789"


def digit_count(text: str) -> int:
    """How many characters of `text` `\\d` matches (an ASCII text's digits are its only ones)."""
    if text.isascii():
        data = text.encode("ascii")
        return len(data) - len(data.translate(None, _ASCII_DIGITS))
    return len(_DIGIT.findall(text))
