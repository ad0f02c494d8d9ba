"""Typed errors. A user's mistake becomes an `InputError` listing every problem found."""

from __future__ import annotations

import datetime
import difflib
import json
import math
import unicodedata
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

SUGGEST_LIMIT = 100_000
"""Above this many known names, no "did you mean" is looked for (it would be too slow)."""
SUGGEST_BUDGET = 10
"""Look-ups one `Suggestions` makes: a wholly wrong file (every ID unknown) would otherwise
cost a scan of every known name per unknown one."""


_MAX_FOUND = 80


def counted(count: int, noun: str) -> str:
    """`count` and `noun`, plural unless one: `1 question`, `0 questions`, `2 questions`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def check_keywords(function: str, given: Iterable[str], keywords: type[Any]) -> None:
    """A `TypeError` for every keyword in `given` that `function` does not take (`keywords`,
    the `TypedDict` of its `**options`), worded as Python words it
    (`compare_files() got an unexpected keyword argument 'resample'`).

    For a function that takes its keywords as `**options` and passes them on: without the
    check, a misspelled keyword is refused by the function they are passed to, whose name the
    caller never wrote. Python names only the first unknown keyword; every one is listed here
    (`... got unexpected keyword arguments 'resample', 'seeds'`).
    """
    accepted = keywords.__required_keys__ | keywords.__optional_keys__
    unknown = [f"'{name}'" for name in given if name not in accepted]
    if len(unknown) == 1:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]}")
    if unknown:
        raise TypeError(f"{function}() got unexpected keyword arguments {', '.join(unknown)}")


def again(first: dict[str, int], key: str, at: int, shown: str) -> str | None:
    """`'x' again (first at [0])` for a key met before (at `first[key]`), else None (noting
    where it is first met)."""
    earlier = first.setdefault(key, at)
    return None if earlier == at else f"{shown} again (first at [{earlier}])"


def id_list(ids: Iterable[str], joiner: str = ", ", words: tuple[str, ...] = (",",)) -> str:
    """IDs joined by `joiner`, each that would read as another or as more than one (holding
    one of `words`, a comma by default, as a word; empty, or with space at an edge) quoted as
    `repr` writes it: `'q3, q7', ' q9', q1` (two IDs and a third, not four)."""
    def ambiguous(i: str) -> bool:
        return any(word in f" {i} " for word in words) or i != i.strip() or not i

    return joiner.join(repr(i) if ambiguous(i) else i for i in ids)


def unencodable_at(text: str) -> int | None:
    """Where `text` first holds what UTF-8 cannot encode (a lone surrogate: how Python holds a
    byte it could not decode, in a path or an option), None when nowhere: such a text could not
    be written to any report or file."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def found_text(value: object) -> str:
    """A value as it appears in an error message (the `found` part), shortened when long.

    A TOML date or time (which JSON lacks) is shown as written; any other value JSON cannot
    write (inside a table, or from a Python caller) as its text, never a crash.
    """
    if isinstance(value, str):
        text = repr(value)
    elif isinstance(value, datetime.date | datetime.time):
        text = str(value)
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    return shortened(text)


def shortened(text: str, limit: int = _MAX_FOUND) -> str:
    """`text` cut to `limit` characters, the last three `...`, when longer (a value an error
    message shows)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def did_you_mean(found: str, known: Collection[str]) -> str:
    """` (did you mean 'd-reset'?)` when a known name is close to `found`, else ``.

    Closeness is `difflib`'s ratio (at least 0.75); the closest name wins, ties by name.
    """
    return Suggestions(known)(found)


class Suggestions:
    """`did_you_mean` over one set of known names, for the first `SUGGEST_BUDGET` unknown ones.

    The names are sorted once, on the first look-up; later unknown names get no suggestion
    (the same names in the same order always give the same messages).
    """

    def __init__(self, known: Collection[str]) -> None:
        self._known = known
        self._ordered: list[str] | None = None
        self._forms: dict[str, str] | None = None
        self._left = SUGGEST_BUDGET if len(known) <= SUGGEST_LIMIT else 0

    def __call__(self, found: str) -> str:
        """` (did you mean 'NAME'?)`, or `` (none close, or the budget is spent)."""
        if not found or self._left <= 0:
            return ""
        self._left -= 1
        if self._ordered is None:
            self._ordered = sorted(self._known)
        # The same text in another Unicode form (`cafe\u0301` for `caf\xe9`) looks the same
        # when shown, and difflib may not find it close: named with escapes.
        if self._forms is None:
            self._forms = {_nfc(k): k for k in reversed(self._ordered)}
        same = self._forms.get(_nfc(found), found)
        if same != found:
            return (
                f" (did you mean {same!a}? {found!a} differs from it only in its "
                "Unicode form)"
            )
        close = difflib.get_close_matches(found, self._ordered, n=1, cutoff=0.75)
        return f" (did you mean {close[0]!r}?)" if close else ""


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with the input: where it is, what was expected, what was found."""

    file: str
    """The file (or `<command line>` for an option)."""
    question_id: str | None
    """The question it concerns, when it concerns one."""
    field: str
    """The field (dotted path within the record; `line N` prefixes for JSONL)."""
    expected: str
    """What a valid input has there."""
    found: str
    """What the input has there."""
    record: str = "question"
    """What `question_id` identifies: a `question`, or a snapshot's `document` or `chunk`."""

    def message(self) -> str:
        """One line naming file, question (or record), field, expected and found."""
        where = self.file.replace("\n", "\\n")  # a path's line break must not start a line
        if self.question_id is not None:
            where += f": {self.record} {self.question_id!r}"
        return f"{where}: {self.field}: expected {self.expected}; found {self.found}"


def option_problem(option: str, expected: str, found: str) -> Problem:
    """A problem with the value of a command-line option or argument (or the API's keyword
    for it): `<command line>: OPTION: expected ...; found ...`."""
    return Problem("<command line>", None, option, expected, found)


@dataclass(frozen=True)
class NumberRange:
    """The values a numeric option accepts: one definition for the command line's click type
    (`cli/_bounds.py`) and the library's check of the same keyword (`range_problems`)."""

    low: int | float
    """The smallest value accepted (unless `low_open`)."""
    high: int | float
    """The largest value accepted."""
    integer: bool = True
    """Whole numbers only (`int`); else any finite number."""
    low_open: bool = False
    """`low` itself is refused (a timeout of 0 seconds would fail every request)."""

    def expected(self) -> str:
        """The `expected` text of a problem: `an integer from 0 to 20`, `a number above 0, at
        most 3600`."""
        if self.integer:
            return f"an integer from {self.low} to {self.high}"
        if self.low_open:
            return f"a number above {self.low}, at most {self.high}"
        return f"a number from {self.low} to {self.high}"

    def __contains__(self, value: object) -> bool:
        # bool is an int to Python, never a count or a number of seconds to the user.
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.integer and not isinstance(value, int):
            return False
        if not math.isfinite(value) or value > self.high:
            return False
        return value > self.low if self.low_open else value >= self.low


def range_problems(*checks: tuple[str, object, NumberRange]) -> list[Problem]:
    """A problem for each `(option, value, range)` whose value is outside its range, worded
    as the command line refuses it (`--max-retries: expected an integer from 0 to 20; found
    -1`); a value of None (an optional option not given) is not checked."""
    return [
        option_problem(option, bound.expected(), shortened(repr(value)))
        for option, value, bound in checks
        if value is not None and value not in bound
    ]


def choice_problems(*checks: tuple[str, object, Sequence[object]]) -> list[Problem]:
    """A problem for each `(option, value, choices)` whose value is none of its choices,
    worded as the command line's choices (`--retriever: expected one of bm25, dense, hybrid;
    found 'bm26'`); None is a value like any other (a choice only where listed)."""
    return [
        option_problem(
            option, "one of " + ", ".join(str(c) for c in choices if c is not None),
            shortened(repr(value)),
        )
        for option, value, choices in checks
        if not any(type(c) is type(value) and c == value for c in choices)
    ]


def flag_problems(*checks: tuple[str, object]) -> list[Problem]:
    """`choice_problems` for flags: a Python keyword that is no bool ('false', 0, None) is
    taken for neither True nor False (`--include-holdout: expected one of True, False; found
    'false'`)."""
    return choice_problems(*((option, value, (True, False)) for option, value in checks))


def refused_once(first: Sequence[Problem], later: Sequence[Problem]) -> list[Problem]:
    """`first`, then the problems of `later` about other fields: a value refused as it is read
    (a TOML `nan`) is not refused again by the checks that follow."""
    named = {(p.file, p.field) for p in first}
    return [*first, *(p for p in later if (p.file, p.field) not in named)]


class RagtriageError(Exception):
    """Base class of every error ragtriage raises on purpose."""


class InputError(RagtriageError):
    """The input is invalid; carries every problem found, in a stable order."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]) -> None:
        ordered = tuple(dict.fromkeys(problems))
        self.problems: tuple[Problem, ...] = ordered
        super().__init__(self.render())

    def render(self) -> str:
        """All problems, one per line, with a count first."""
        count = len(self.problems)
        head = f"{counted(count, 'problem')} found in the input:"
        return "\n".join([head, *(f"- {p.message()}" for p in self.problems)])


def problems_of(check: Callable[[T], object], value: T) -> tuple[Problem, ...]:
    """The problems of the `InputError` that `check(value)` raises (none when it passes): a
    check that raises at its first refusal, gathered with others into one error."""
    try:
        check(value)
    except InputError as exc:
        return exc.problems
    return ()


def each_or_refused(function: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """`function` of each item, in order; when it refuses some (`InputError`), one error with
    every refused item's problems (a function that stops at its first refusal, over many)."""
    problems: list[Problem] = []
    out: list[R] = []
    for item in items:
        try:
            out.append(function(item))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return out


class ProblemCollector:
    """Gathers problems so that every one is reported, not only the first."""

    def __init__(self) -> None:
        self._problems: list[Problem] = []

    def add(
        self, file: str, question_id: str | None, field: str, expected: str, found: str
    ) -> None:
        """Record one problem."""
        self._problems.append(Problem(file, question_id, field, expected, found))

    def extend(self, problems: list[Problem] | tuple[Problem, ...]) -> None:
        """Record several problems."""
        self._problems.extend(problems)

    @property
    def problems(self) -> tuple[Problem, ...]:
        """The problems recorded so far."""
        return tuple(self._problems)

    def raise_if_any(self) -> None:
        """Raise `InputError` with everything recorded, if anything was."""
        if self._problems:
            raise InputError(self._problems)


class RequestError(RagtriageError):
    """A request that is missing something or combines options that do not go together.

    The command line shows it as a usage error (`Usage: ...`, exit 2); the message names the
    options as the command line spells them (the Python keywords are the same words).
    """


def check_callback(value: object, name: str) -> None:
    """Refuse a callback that is neither None nor callable (`notify=5`), naming it, before any
    work: it is only called once there is something to say, which may be after the work."""
    if value is not None and not callable(value):
        raise wrong_argument(value, name, "a callable or None")


def wrong_argument(value: object, name: str | None, expected: str) -> RequestError:
    """A Python argument of the wrong type (None, a number, bytes ...) as a `RequestError`
    naming it, instead of a `TypeError` from deep inside: `NAME: expected EXPECTED; found
    TYPE VALUE` (`found None` for None)."""
    shown = shortened(repr(value))
    if value is not None:
        shown = f"{type(value).__name__} {shown}"
    where = f"{name}: " if name else ""
    return RequestError(f"{where}expected {expected}; found {shown}")
