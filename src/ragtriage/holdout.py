"""The holdout split: left out unless asked for, and every look at it recorded in a ledger.

A holdout estimate stays honest only while nobody tunes against it. Commands therefore
leave `split: holdout` questions out by default; when a user includes them, one line is
appended to a ledger file beside the evaluation set (`<evalset>.holdout-ledger.jsonl`),
and the command warns once the holdout has been looked at more than a chosen number of
times. The ledger is never part of a scored report, so reports stay byte-identical.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from .errors import (
    InputError,
    Problem,
    ProblemCollector,
    RequestError,
    counted,
    flag_problems,
    option_problem,
    range_problems,
    shortened,
)
from .fileio import file_problem, json_line, lock_file, parse_json, refuse_inputs, text_lines
from .loading import Dataset, validate_item
from .paths import PathArg, as_optional_path, as_path
from .schemas import EvalSet, Question, Run, StrictModel

HOLDOUT = "holdout"
"""The split kept apart."""

LEDGER_SUFFIX = ".holdout-ledger.jsonl"
"""Appended to the evaluation set's file name without its extension."""

DEFAULT_WARN_AFTER = 3
"""Warn when the holdout has been looked at more than this many times."""

BESIDE_THE_SET = "the holdout ledger"
"""How an output naming the ledger beside the set (no `--ledger`) is told it is an input."""


LEDGER_COMMANDS = (
    "evaluate", "diagnose", "compare", "gate", "report", "export trec", "calibrate", "python"
)
"""The commands a look is recorded by (`python`: `Request.evaluate` called from Python)."""

_SHA256 = re.compile("[0-9a-f]{64}")


def _checked(expected: str, good: Callable[[str], bool]) -> AfterValidator:
    """A field's check: `good` values pass, any other is refused as not `expected`."""

    def check(value: str) -> str:
        if not good(value):
            raise ValueError(expected)
        return value

    return AfterValidator(check)


def _utc_time(value: str) -> bool:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return False
    return "T" in value and moment.utcoffset() == timedelta(0)


class LedgerEntry(StrictModel):
    """One look at the holdout (one line of the ledger file)."""

    time: Annotated[
        str, _checked("a UTC time in ISO 8601 (2026-11-30T05:40:00Z)", _utc_time)
    ]
    """When, in UTC, ISO 8601 (`2026-11-30T05:40:00Z`)."""
    dataset_sha256: Annotated[
        str, _checked("64 lowercase hex digits (a SHA-256)", lambda v: bool(_SHA256.fullmatch(v)))
    ]
    """SHA-256 of the evaluation set file (an edited set shows a different hash)."""
    evalset: str
    """The evaluation set's path relative to the ledger's folder (`ragtriage:example/...` for
    the bundled example); a line written before this rule: the path as given."""
    runs: list[str]
    """Names of the runs evaluated."""
    user: str = Field(min_length=1)
    """Who looked: `--who`, else $USER, else `unknown`."""
    command: Annotated[
        str, _checked(f"one of {', '.join(LEDGER_COMMANDS)}", lambda v: v in LEDGER_COMMANDS)
    ]
    """The ragtriage command that looked (`LEDGER_COMMANDS`)."""
    holdout_questions: int = Field(ge=1)
    """How many holdout questions were scored (a look at none is not recorded)."""


@dataclass(frozen=True)
class Notice:
    """Something a command tells its user on stderr (`note: ...`, `warning: ...`)."""

    level: Literal["note", "warning"]
    """`note`: what was done; `warning`: something the user should act on."""
    text: str
    """The message, without its level."""

    def __str__(self) -> str:
        return f"{self.level}: {self.text}"


@dataclass(frozen=True)
class HoldoutLook:
    """The result of recording a look: where, the entry, and the total count so far."""

    ledger: Path
    """The ledger file."""
    entry: LedgerEntry
    """The entry appended."""
    looks: int
    """Looks at this evaluation set after this one: the ledger's entries with its SHA-256 or
    a path naming its file (a ledger may be shared by several sets; an edited set is the same
    set, however its path is spelt)."""
    evalset: str
    """The evaluation set as shown (its path as given, `ragtriage:example/...`)."""


def without_holdout(dataset: Dataset) -> Dataset:
    """The dataset minus its holdout questions and every run's results for them (input
    hashes still describe the files as read; only what is scored changes)."""
    return keep_questions(dataset, lambda question: question.split != HOLDOUT)


def holdout_ids(evalset: EvalSet) -> frozenset[str]:
    """The IDs of the evaluation set's holdout questions."""
    return frozenset(q.id for q in evalset.questions if q.split == HOLDOUT)


def keep_questions(dataset: Dataset, keep: Callable[[Question], bool]) -> Dataset:
    """The dataset with only the questions `keep` keeps and every run's results for them."""
    evalset, runs = kept_questions(dataset.evalset, dataset.runs, keep)
    return dataset if evalset is dataset.evalset else replace(dataset, evalset=evalset, runs=runs)


def kept_questions(
    evalset: EvalSet, runs: Sequence[Run], keep: Callable[[Question], bool]
) -> tuple[EvalSet, tuple[Run, ...]]:
    """The evaluation set with only the questions `keep` keeps, and each run with only its
    results for them (the same objects when `keep` keeps every question)."""
    hidden = {q.id for q in evalset.questions if not keep(q)}
    if not hidden:
        return evalset, tuple(runs)
    kept = evalset.model_copy(
        update={"questions": [q for q in evalset.questions if q.id not in hidden]}
    )
    return kept, tuple(
        run.model_copy(update={"results": [r for r in run.results if r.question_id not in hidden]})
        for run in runs
    )


def ledger_path(evalset: PathArg) -> Path:
    """`data/evalset.json` -> `data/evalset.holdout-ledger.jsonl`.

    The bundled example lives inside the installed package, which must stay read-only:
    its ledger goes to the temporary directory instead. A set named through a link has its
    ledger beside the file linked to, so the looks at one set are counted together.
    """
    evalset = as_path(evalset)
    real = Path(os.path.realpath(evalset))  # not `resolve`: a link loop is the reader's to refuse
    if Path(__file__).resolve().parent in real.parents:
        return Path(tempfile.gettempdir()) / ("ragtriage-example" + LEDGER_SUFFIX)
    evalset = real if evalset.is_symlink() else evalset
    return evalset.with_name(evalset.stem + LEDGER_SUFFIX)


def current_user(who: str | None = None) -> str:
    """The name recorded for a look: `who` when given, else $USER, else `unknown`."""
    return who or os.environ.get("USER") or "unknown"


def read_ledger(path: PathArg) -> tuple[LedgerEntry, ...]:
    """Every entry of a ledger (none when the file does not exist).

    Every bad line (not JSON, a field missing, of the wrong type or unknown) is reported at
    once, naming the line and field, as every other input file's: one `InputError`.
    """
    path = as_path(path)
    if not os.path.lexists(path):  # a broken or looping link is read (and refused) below
        return ()
    try:  # without blocking: a named pipe is refused below, not waited on
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:  # reading it names the problem
        return _entries(path)
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):  # a look another command appends is read whole
            lock_file(fd, shared=True)
        return _entries(path)
    finally:
        os.close(fd)


def _entries(path: Path) -> tuple[LedgerEntry, ...]:
    """`read_ledger` of an existing ledger, without a lock (`record_look` holds its own)."""
    label = str(path)
    collector = ProblemCollector()
    entries = []
    for number, text in text_lines(path, label, problems=collector):
        if not text.strip():
            continue
        try:
            data = parse_json(text, label, number)
        except InputError as exc:
            collector.extend(exc.problems)
            continue
        entry = validate_item(LedgerEntry, data, label, collector, None, f"line {number}: ")
        if entry is not None:
            entries.append(entry)
    collector.raise_if_any()
    return tuple(entries)


def record_look(
    evalset: tuple[str, str],
    count: int,
    *,
    command: str,
    runs: Sequence[str],
    who: str | None = None,
    ledger: PathArg | None = None,
    now: datetime | None = None,
) -> HoldoutLook | None:
    """Append a ledger entry for an evaluation set, given as (path, SHA-256), with `count`
    holdout questions that `runs` answer; None (nothing written) when `count` is 0."""
    ledger = as_optional_path(ledger)
    if count == 0:
        return None
    shown, sha = evalset
    path = ledger if ledger is not None else ledger_path(Path(shown))
    stored = shown
    if not shown.startswith("ragtriage:"):  # the bundled example is shown as its own name
        with contextlib.suppress(ValueError):  # no relative path to another drive
            stored = os.path.relpath(Path(shown).absolute(), path.absolute().parent)
    moment = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    entry = LedgerEntry(
        time=moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        dataset_sha256=sha,
        evalset=stored,
        runs=list(runs),
        user=current_user(who),
        command=command,
        holdout_questions=count,
    )
    line = json_line(entry.model_dump()) + "\n"
    try:
        with path.open("a+b") as handle:
            lock_file(handle)  # commands run at once count their looks in turn
            previous = _entries(path)
            # A ledger edited by hand may lack its last line end: the entry then starts a
            # line of its own instead of running on into the last one (which would break
            # the ledger for every later look).
            size = handle.seek(0, os.SEEK_END)
            if size:
                handle.seek(size - 1)
                if handle.read(1) != b"\n":
                    line = "\n" + line
            handle.write(line.encode("utf-8"))
    except OSError as exc:
        hint = " (or pass --ledger)" if ledger is None else ""  # not when it was passed
        expected = f"a writable holdout ledger{hint}"
        raise file_problem(str(path), expected, exc.strerror or str(exc)) from exc
    same = _same_file(shown, path.parent, {e.evalset for e in previous})
    looks = sum(e.dataset_sha256 == sha or e.evalset in same for e in previous)
    return HoldoutLook(path, entry, 1 + looks, shown)


def _same_file(shown: str, folder: Path, names: set[str]) -> set[str]:
    """The ledger's evaluation set `names` that name the set shown as `shown`: the same text,
    or a path that, taken from the ledger's `folder` (as written now) or from the working
    directory (as a line written before gave it), names the same file."""
    def resolved(path: Path) -> Path | None:
        try:
            return path.resolve()
        except (OSError, RuntimeError):  # RuntimeError: a loop of symbolic links
            return None

    target = resolved(Path(shown))
    if target is None:
        return names & {shown}
    return {
        name for name in names
        if name == shown or target in (resolved(folder / name), resolved(Path(name)))
    }


@dataclass(frozen=True)
class HoldoutPolicy:
    """What a request does with the holdout split: leave it out, or score it and record the look."""

    include: bool = False
    """Score holdout questions (and record the look in the ledger)."""
    who: str | None = None
    """Name recorded in the ledger instead of $USER."""
    warn_after: int = DEFAULT_WARN_AFTER
    """Warn when the holdout has been looked at more than this many times."""
    ledger: Path | None = None
    """Ledger file instead of the one beside the evaluation set."""

    def problems(self) -> list[Problem]:
        """What the command line's options refuse, from Python: an `include` that is no bool,
        a `who` that is empty or no str (else recorded as $USER, or as 5), a `warn_after`
        outside its range."""
        from .validation import HOLDOUT_WARN_AFTER_RANGE

        problems = range_problems(
            ("--holdout-warn-after", self.warn_after, HOLDOUT_WARN_AFTER_RANGE)
        ) + flag_problems(("--include-holdout", self.include))
        if self.who == "" or not isinstance(self.who, str | None):
            found = "an empty string" if self.who == "" else shortened(repr(self.who))
            problems.append(option_problem("--who", "a name for the holdout ledger", found))
        return problems

    def check(self, dataset: PathArg | None) -> None:
        """Refuse this policy for a command whose evaluation set is `dataset` (None: none, as
        `export trec` and `calibrate` may have): `include` without one (`RequestError`: the
        holdout is one of its splits), else the options' `problems` (`InputError`)."""
        if self.include and dataset is None:
            raise RequestError("--include-holdout needs DATASET (the holdout is one of its splits)")
        if problems := self.problems():
            raise InputError(problems)

    @contextlib.contextmanager
    def checking_ledger(self, evalset: Path | None) -> Iterator[None]:
        """The input checked in this block with the ledger a look would go to (`read_ledger`,
        with `include`): an `InputError` of the block carries the ledger's problems too, and a
        bad ledger alone is refused as the block ends, before what follows scores or writes."""
        ledger: list[Problem] = []
        if self.include and evalset is not None:
            try:
                read_ledger(self.ledger or ledger_path(evalset))
            except InputError as exc:
                ledger = list(exc.problems)
        try:
            yield
        except InputError as exc:
            raise InputError([*exc.problems, *ledger]) from None
        if ledger:
            raise InputError(ledger)

    def refuse_ledger_as_input(self, inputs: Sequence[tuple[str, Path | None]]) -> None:
        """Raise `OutputError` when the ledger, which a look is added to, is one of the
        request's input files (option, path; None: not given): the look would be written into
        the dataset, a run or a label file."""
        if self.ledger is not None:
            refuse_inputs([self.ledger], [(o, path) for o, path in inputs if path is not None])

    def notices(
        self, evalset: tuple[str, str], count: int, command: str, runs: Sequence[str],
        including: str = "scores",
    ) -> tuple[Notice, ...]:
        """What the user is told about `count` holdout questions of an evaluation set (path,
        SHA-256) that `runs` answer: without `include`, that they were left out (and that
        --include-holdout `including` them); with it, the look is recorded first (and a
        warning once it was looked at more than `warn_after` times)."""
        if count == 0:
            return ()
        if not self.include:
            return (
                Notice(
                    "note",
                    f"{counted(count, 'holdout question')} left out; --include-holdout "
                    f"{including} them (and records the look)",
                ),
            )
        look = record_look(
            evalset, count, command=command, runs=runs, who=self.who, ledger=self.ledger
        )
        warning = None if look is None else look_warning(look, self.warn_after)
        return () if warning is None else (Notice("warning", warning),)


def look_warning(look: HoldoutLook, warn_after: int = DEFAULT_WARN_AFTER) -> str | None:
    """A warning once the holdout has been looked at more than `warn_after` times."""
    if look.looks <= warn_after:
        return None
    return (
        f"the holdout of {look.evalset} has been looked at {look.looks} times "
        f"(more than {warn_after}); every look tunes against it, so its scores are "
        f"drifting towards optimistic (ledger: {look.ledger})"
    )
