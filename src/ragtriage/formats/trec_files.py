"""TREC qrels and run files: read, write, and convert to the native models.

Qrels lines are `QID ITER DOCID GRADE`; run lines are `QID Q0 DOCID RANK SCORE TAG`, fields
separated by any whitespace. A grade above 0 means relevant. The rank column is ignored,
as trec_eval ignores it: a question's ranking is its documents sorted by score, highest
first, and equal scores by document ID in descending byte order (trec_eval's rule).

A line whose first non-blank character is `#` is a comment and is skipped, as trec_eval
10.0 skips it; the readers count such lines (`comments`) so reports can say how many.
Scores are read with Python's `float` (so C99 hex floats such as `0x1p-3`, which trec_eval's
`atof` takes, are refused with the line number) and files must be UTF-8. Grades are decimal
integers (`GRADE_PATTERN`) and scores are ASCII without `_`: Python's `int` and `float` alone
would also read `1_0` as 10 and digits of other scripts (`٣`, `３`), where trec_eval reads
something else.

Every malformed line, duplicate (question, document) pair and non-finite score is reported
with its line number, what was expected and what was found; nothing is skipped silently.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import InputError, Problem, ProblemCollector, counted
from ..fileio import LONGER_LINE, MAX_GRADE, MIN_GRADE, text_lines, write_text
from ..paths import PathArg, as_path
from .trec_records import UNITS, FileKind, file_kind, is_token, json_rows, parquet_rows, tokens

if TYPE_CHECKING:  # the readers need no models; the converters import them when called
    from ..schemas import EvalSet, Run, Snapshot

Qrels = dict[str, dict[str, int]]
"""Question ID -> document ID -> grade (graded relevance; > 0 is relevant)."""

TrecRun = dict[str, list[tuple[str, float]]]
"""Question ID -> (document ID, score) pairs, in ranking order (best first)."""

QRELS_FIELDS = ("question ID", "iteration", "document ID", "grade")
"""The four qrels columns, in file order."""

RUN_FIELDS = ("question ID", "Q0", "document ID", "rank", "score", "run tag")
"""The six run columns, in file order."""

GRADE_RANGE = f"an integer from {MIN_GRADE} to {MAX_GRADE}"
GRADE_PATTERN = "[+-]?[0-9]+"
"""How a grade is written: ASCII decimal digits, with a sign or without."""
_GRADE = re.compile(GRADE_PATTERN)


def ranking_key(item: tuple[str, float]) -> tuple[float, bytes]:
    """Sort key of trec_eval's rule: score, then document ID bytes (use with reverse=True)."""
    return item[1], item[0].encode("utf-8")


_C_SPACE = frozenset(" \t\n\v\f\r")
"""The separators of C's `isspace` (trec_eval's); `str.split` also splits at others."""


def _other_separator(line: str) -> str:
    """`, split also at U+00A0 NO-BREAK SPACE (column 3)` for the first separator of the line
    that is not one of C's (often invisible, or unlike a space: the fields a user sees are not
    the ones counted), else ``."""
    for column, char in enumerate(line, start=1):
        if char.isspace() and char not in _C_SPACE:
            code = f"U+{ord(char):04X} {unicodedata.name(char, '')}".rstrip()
            return f", split also at {code} (column {column})"
    return ""


def _field_count(
    line: str,
    parts: list[str],
    fields: Sequence[str],
    number: int,
    label: str,
    collector: ProblemCollector,
    json_starts: str,
) -> bool:
    # A separator trec_eval does not split at is refused even where the count comes right:
    # trec_eval would read other fields (`a\u00a0x 2 0.5` is its document ID, rank, score).
    other = _other_separator(line)
    if len(parts) == len(fields) and not other:
        return True
    # a JSON array, or a gzipped JSON object (an unpacked one is read: `trec_records.file_kind`)
    json = number == 1 and parts[0][:1] in json_starts
    json_hint = "; the file looks like a JSON document, not TREC lines" if json else ""
    expected = f"{len(fields)} whitespace-separated fields ({', '.join(fields)})"
    found = f"{counted(len(parts), 'field')}{json_hint or other}"
    collector.add(label, parts[0] if parts else None, f"line {number}", expected, found)
    return False


def _rows(
    path: Path,
    fields: Sequence[str],
    shown: str,
    collector: ProblemCollector,
    seen: set[str] | None,
    comments: list[int] | None,
    kind: FileKind,
) -> Iterator[tuple[int, list[str]]]:
    # Every non-blank line's question ID goes to `seen`, even when the line is then rejected.
    try:
        if kind in ("json", "parquet"):
            run = len(fields) == len(RUN_FIELDS)
            read = json_rows if kind == "json" else parquet_rows
            for number, parts in read(path, run, collector, seen):
                if tokens(parts, f"{UNITS[kind]} {number}", shown, collector):
                    yield number, parts
            return
        json_starts = "[{" if kind == "gzip" else "["
        for number, line in text_lines(path, shown, kind == "gzip", collector):
            parts = line.split()
            if parts and parts[0].startswith("#"):
                if comments is not None:
                    comments.append(number)
            elif parts:
                if seen is not None:
                    seen.add(parts[0])
                if _field_count(line, parts, fields, number, shown, collector, json_starts):
                    yield number, parts
    except InputError as exc:
        collector.extend(exc.problems)


def repeated_document(
    first_seen: dict[tuple[str, str], int],
    qid: str,
    docid: str,
    number: int,
    expected: str,
    shown: str,
    collector: ProblemCollector,
    *,
    unit: str = "line",
    field: str = "document ID",
) -> bool:
    """Record where each (question, document) pair first stood; True, with a problem naming
    both places (`line 7: document ID`, or `row 7: docid` with `unit` and `field`), when the
    pair stood earlier."""
    first = first_seen.setdefault((qid, docid), number)
    if first == number:
        return False
    found = f"{docid!r} again (first on {unit} {first})"
    collector.add(shown, qid, f"{unit} {number}: {field}", expected, found)
    return True


def parse_qrels(
    path: PathArg,
    collector: ProblemCollector,
    seen: set[str] | None = None,
    comments: list[int] | None = None,
) -> Qrels:
    """Read a qrels file; every problem goes to `collector` (the result is partial then).

    `seen`, when given, receives the question ID of every line, valid or not; `comments`
    receives the line number of every skipped `#` comment line.
    """
    path = as_path(path)
    shown = str(path)
    qrels: Qrels = {}
    first_line: dict[tuple[str, str], int] = {}
    kind = file_kind(path)
    unit = UNITS[kind]
    for number, parts in _rows(path, QRELS_FIELDS, shown, collector, seen, comments, kind):
        qid, _iteration, docid, raw = parts
        if not _GRADE.fullmatch(raw):
            collector.add(shown, qid, f"{unit} {number}: grade", "an integer", repr(raw))
            continue
        # A longer text is out of range (and int() refuses texts past 4300 digits).
        grade = int(raw) if len(raw) <= 20 else None
        if grade is None or not MIN_GRADE <= grade <= MAX_GRADE:
            collector.add(shown, qid, f"{unit} {number}: grade", GRADE_RANGE, repr(raw))
            continue
        expected = "each document judged once per question"
        if repeated_document(first_line, qid, docid, number, expected, shown, collector, unit=unit):
            continue
        qrels.setdefault(qid, {})[docid] = grade
    return qrels


def parse_run(
    path: PathArg,
    collector: ProblemCollector,
    seen: set[str] | None = None,
    comments: list[int] | None = None,
) -> TrecRun:
    """Read a run file, rankings sorted by trec_eval's rule; problems go to `collector`.

    `seen`, when given, receives the question ID of every line, valid or not; `comments`
    receives the line number of every skipped `#` comment line.
    """
    path = as_path(path)
    shown = str(path)
    run: TrecRun = {}
    first_line: dict[tuple[str, str], int] = {}
    kind = file_kind(path)
    unit = UNITS[kind]
    for number, parts in _rows(path, RUN_FIELDS, shown, collector, seen, comments, kind):
        qid, _q0, docid, _rank, raw, _tag = parts
        try:
            score = float(raw) if raw.isascii() and "_" not in raw else math.nan
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            collector.add(shown, qid, f"{unit} {number}: score", "a finite number", repr(raw))
            continue
        expected = "each document at most once per question"
        if repeated_document(first_line, qid, docid, number, expected, shown, collector, unit=unit):
            continue
        run.setdefault(qid, []).append((docid, score))
    return {qid: sorted(items, key=ranking_key, reverse=True) for qid, items in run.items()}


_UNREAD = re.compile(r"\(file\)$|column |line \d+ column ")
"""Fields of problems that stop a file being read through (`fileio`'s, Parquet's columns)."""


def read_through(problems: Sequence[Problem]) -> bool:
    """Whether no problem stopped its file being read through (missing, a byte that is not
    UTF-8 at `line 7 column 3`, a line past the bound, a Parquet column): after one, the
    file's questions are unknown, neither missing nor unjudged."""
    return not any(_UNREAD.match(p.field) or p.found == LONGER_LINE for p in problems)


def nothing_to_read(
    label: str, kind: Literal["qrels", "run"], comments: int, blank: bool = False
) -> Problem:
    """The problem of a qrels or run file without one line to read (empty, only comments, or
    with `blank`, only blank lines): it would give an empty evaluation set or run, never what
    was meant."""
    what, fields = ("judgement", QRELS_FIELDS) if kind == "qrels" else ("run", RUN_FIELDS)
    empty = "only blank lines" if blank else "an empty file"  # as JSONL files say
    found = f"only {counted(comments, 'comment line')}" if comments else empty
    return Problem(label, None, "(file)", f"at least one {what} line ({', '.join(fields)})", found)


def first_line_problem(path: PathArg, kind: Literal["qrels", "run"]) -> Problem | None:
    """`nothing_to_read`'s problem when the file has no line but blanks and comments, else None.

    Reads up to the first such line (a usual file: one line); raises `InputError` for a file
    that cannot be read (missing, not UTF-8, ...).
    """
    path = as_path(path)
    comments, blanks, form = 0, 0, file_kind(path)
    if form in ("json", "parquet"):  # their readers refuse a file without records
        return None
    for _number, line in text_lines(path, str(path), gunzip=form == "gzip"):
        parts = line.split()
        if parts and not parts[0].startswith("#"):
            return None
        comments += bool(parts)
        blanks += not parts
    return nothing_to_read(str(path), kind, comments, blanks > 0)


def read_qrels(path: PathArg) -> Qrels:
    """Read a qrels file into {question: {document: grade}}; raise `InputError` on any problem."""
    collector = ProblemCollector()
    qrels = parse_qrels(path, collector)
    collector.raise_if_any()
    return qrels


def read_run(path: PathArg) -> TrecRun:
    """Read a run into {question: [(document, score), ...]} best first; raise `InputError`."""
    collector = ProblemCollector()
    run = parse_run(path, collector)
    collector.raise_if_any()
    return run


def _check_token(value: str, what: str, first: bool = False) -> str:
    if not is_token(value, first):
        start = ", not starting with #" if first else ""
        raise ValueError(
            f"a TREC {what} must be non-empty, without NUL{start} and free of whitespace: "
            f"{value!r}"
        )
    return value


def write_qrels(qrels: Mapping[str, Mapping[str, int]], path: PathArg) -> None:
    """Write qrels sorted by question then document (same input, same bytes)."""
    path = as_path(path)
    lines = [
        f"{_check_token(qid, 'question ID', True)} 0 {_check_token(docid, 'document ID')}"
        f" {int(grade)}\n"
        for qid in sorted(qrels)
        for docid, grade in sorted(qrels[qid].items())
    ]
    write_text(path, "".join(lines))


def write_run(
    run: Mapping[str, Sequence[tuple[str, float]]], path: PathArg, tag: str = "ragtriage"
) -> None:
    """Write a run: questions sorted, each ranking in trec_eval order, rank from 1.

    Scores are written with `repr`, so reading the file back gives the same floats.
    """
    path = as_path(path)
    _check_token(tag, "run tag")
    out = []
    for qid in sorted(run):
        ranked = sorted(run[qid], key=ranking_key, reverse=True)
        for rank, (docid, score) in enumerate(ranked, start=1):
            if not math.isfinite(score):
                raise ValueError(f"a TREC score must be finite: {score!r} for {qid!r}/{docid!r}")
            out.append(
                f"{_check_token(qid, 'question ID', True)} Q0 {_check_token(docid, 'document ID')}"
                f" {rank} {float(score)!r} {tag}\n"
            )
    write_text(path, "".join(out))


def qrels_to_evalset(
    qrels: Qrels, evalset_id: str = "trec", snapshot_id: str | None = None
) -> EvalSet:
    """Qrels as an evaluation set: each relevant document is one required evidence group.

    A question with no relevant document is `unanswerable` (the collection holds no answer
    for it), so its retrieval measures are not applicable rather than 0.
    """
    from ..schemas import EvalSet, EvidenceGroup, Question

    questions = []
    for qid in sorted(qrels):
        groups = [
            EvidenceGroup(any_of=[docid], grade=grade)
            for docid, grade in sorted(qrels[qid].items())
            if grade > 0
        ]
        questions.append(
            Question(
                id=qid,
                text=f"TREC question {qid}",
                answerability="answerable" if groups else "unanswerable",
                required_evidence=groups,
            )
        )
    return EvalSet(evalset_id=evalset_id, snapshot_id=snapshot_id, questions=questions)


def run_to_native(run: TrecRun, name: str = "trec") -> Run:
    """A TREC run as a retrieval-only native run (candidates only, no answers)."""
    from ..schemas import QuestionResult, RankedItem, Run

    results = [
        QuestionResult(
            question_id=qid,
            candidates=[RankedItem(id=docid, score=score) for docid, score in run[qid]],
        )
        for qid in sorted(run)
    ]
    return Run(name=name, results=results)


def snapshot_for(qrels: Qrels, run: TrecRun, snapshot_id: str = "trec") -> Snapshot:
    """A text-less snapshot holding every document ID the qrels or the run mention."""
    from ..schemas import Document, Snapshot

    ids = {docid for judged in qrels.values() for docid in judged}
    ids.update(docid for ranked in run.values() for docid, _ in ranked)
    return Snapshot(
        snapshot_id=snapshot_id, documents=[Document(id=docid, text="") for docid in sorted(ids)]
    )
