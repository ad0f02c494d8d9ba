"""The recorder: a native JSONL run written one finished question at a time."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, get_args

from pydantic import ValidationError

from ..errors import InputError, Problem, ProblemCollector, flag_problems, found_text
from ..fileio import cannot_create, file_problem, json_line, lock_file, make_folder
from ..loading import Wanted, pydantic_problems, read_file
from ..paths import as_path, file_suffix
from ..schemas import Component, Provenance, QuestionResult, Run, RunHeader, Scalar
from ._environment import capture_environment
from ._question import QuestionRecording, RecordingError, refused_problems, unwritable_problems
from ._wrap import StageWrappers

Durability = Literal["fsync", "flush"]
"""`flush` (default): each finished question is handed to the operating system before the
call returns, so it survives the process being killed (not a power cut); `fsync`: it also
reaches the disk (about 10 ms per question on a slow disk: see benchmarks/recorder_overhead.py)."""


def _component(value: Component | str | None) -> Component | None:
    return Component(name=value) if isinstance(value, str) else value


def _differences(prefix: str, expected: Any, found: Any) -> list[tuple[str, Any, Any]]:
    if isinstance(expected, dict) and isinstance(found, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in sorted(set(expected) | set(found)):
            out += _differences(
                f"{prefix}.{key}" if prefix else key, expected.get(key), found.get(key)
            )
        return out
    return [] if expected == found else [(prefix, expected, found)]


def _taken_error(path: Path) -> InputError:
    expected = "a run no other Recorder writes (threads and tasks share one)"
    found = "another Recorder has it open, in this process or another"
    return file_problem(str(path), expected, found)


class Recorder(StageWrappers):
    """Records a run as native JSONL while the system answers, one question at a time.

    The header (run name and provenance, with the environment captured automatically) is the
    file's first line; each finished question is appended as one line and flushed, so a killed
    process leaves a valid run up to the last finished question. Opening an existing file
    resumes it: its header must match this recorder's, and the questions it holds are skipped
    (`pending`) and refused (`question`). Safe to use from threads and asyncio tasks: each
    question is its own object, and appends are serialised by a lock. A second Recorder on a
    file one has open (in any process) is refused: it could record a question again.
    """

    def __init__(
        self,
        path: Path | str,
        name: str,
        *,
        snapshot_id: str | None = None,
        evalset_id: str | None = None,
        retriever: Component | str | None = None,
        reranker: Component | str | None = None,
        generator: Component | str | None = None,
        prompt_version: str | None = None,
        k: int | None = None,
        filters: Mapping[str, Scalar] | None = None,
        seed: int | None = None,
        notes: str | None = None,
        packages: Sequence[str] = (),
        repo: Path | None = None,
        capture: bool = True,
        durability: Durability = "flush",
    ) -> None:
        self.path = as_path(path, "path")
        """The run file (JSONL)."""
        environment: dict[str, Scalar] = (
            dict(capture_environment(packages, repo)) if capture else {}
        )
        refused = []  # a misspelt durability would silently be "flush"
        if durability not in get_args(Durability):
            expected, found = "'fsync' or 'flush'", found_text(durability)
            refused.append(Problem(str(self.path), None, "durability", expected, found))
        # capture="no" is no False: refused as every flag is, named with the run file.
        refused += [replace(p, file=str(self.path)) for p in flag_problems(("capture", capture))]
        try:
            header = RunHeader(
                name=name,
                provenance=Provenance(
                    snapshot_id=snapshot_id,
                    evalset_id=evalset_id,
                    retriever=_component(retriever),
                    reranker=_component(reranker),
                    generator=_component(generator),
                    prompt_version=prompt_version,
                    k=k,
                    filters=dict(filters) if isinstance(filters, Mapping) else filters or {},
                    seed=seed,
                    notes=notes,
                    environment=environment,
                ),
            )
        except ValidationError as exc:
            # A wrong argument (a name that is no string, k as text) is named as the field of
            # the run's header it fills, as a loader names a field of a run file.
            raise InputError(pydantic_problems(exc, str(self.path), None) + refused) from None
        if refused:
            raise InputError(refused)
        self.header = header
        """The run's header line: name and provenance."""
        self._durability = durability
        self._lock = threading.Lock()
        self._recorded: set[str] = set()
        self._open: set[str] = set()
        self._fd: int | None = None
        # Each thread and asyncio task sees its own open question.
        self._current: ContextVar[QuestionRecording | None] = ContextVar(
            f"ragtriage_question_{id(self)}", default=None
        )
        self._start()

    # -- the file --------------------------------------------------------------------------

    def _resume(self) -> bool:
        """Read an existing run; True when it had content (so no header is written)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return False
        collector = ProblemCollector()
        loaded = read_file(self.path, collector, wanted=Wanted(("run",), "run"))
        collector.raise_if_any()
        existing = loaded.content
        assert isinstance(existing, Run)
        old = RunHeader(name=existing.name, provenance=existing.provenance)
        diffs = _differences("", self.header.model_dump(mode="json"), old.model_dump(mode="json"))
        if diffs:
            why = " (this recorder's header; record into a new file to change the run's conditions)"
            file = str(self.path)
            raise InputError(
                [
                    Problem(file, None, f"line 1: {f}", json_line(want) + why, json_line(got))
                    for f, want, got in diffs
                ]
            )
        seen: set[str] = set()
        for result in existing.results:
            qid = result.question_id
            if qid in seen:
                expected, found = "one result per question", "a second result"
                raise InputError([Problem(str(self.path), qid, "question_id", expected, found)])
            seen.add(qid)
        self._recorded = seen
        return True

    def _start(self) -> None:
        if file_suffix(self.path) != ".jsonl":
            # The loaders read a `.json` file as one document; a streamed run is JSONL.
            raise file_problem(str(self.path), "a .jsonl path", repr(self.path.suffix))
        size = self.path.stat().st_size if self.path.is_file() else 0
        try:
            resumed = self._resume()
        except InputError:  # what was read may be a line another Recorder is writing
            if self._taken():
                raise _taken_error(self.path) from None
            raise
        make_folder(self.path.parent)
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:  # a read-only run or folder, as every output says it
            raise cannot_create(self.path, exc) from None
        try:
            # one writer, so `_recorded` is all the file holds (a second could record a
            # question again)
            if not lock_file(self._fd, wait=False):
                raise _taken_error(self.path) from None
            if os.fstat(self._fd).st_size != size:  # written to before the lock was taken
                resumed = self._resume()
        except BaseException:
            self.close()
            raise
        if not resumed:
            self._append((json_line(self.header.model_dump(mode="json")) + "\n").encode("utf-8"))
        elif not self._ends_a_line():  # another tool's last line: ended before the next
            self._append(b"\n")

    def _taken(self) -> bool:
        """Whether another Recorder holds the run's lock (in this process or another)."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return False
        try:
            return not lock_file(fd, shared=True, wait=False)
        except OSError:  # a file system without locks: nothing says another holds it
            return False
        finally:
            os.close(fd)

    def _ends_a_line(self) -> bool:
        """Whether the (non-empty) file's last byte is a newline."""
        with self.path.open("rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"

    def _append(self, data: bytes) -> None:
        # One write of the whole line on an O_APPEND descriptor: a killed process leaves the
        # line whole or absent.
        if self._fd is None:
            raise RecordingError(f"{self.path}: the recorder is closed")
        while data:
            written = os.write(self._fd, data)
            data = data[written:]
        if self._durability == "fsync":
            os.fsync(self._fd)

    def close(self) -> None:
        """Close the file (finished questions are already on disk)."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> Recorder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- questions -------------------------------------------------------------------------

    @property
    def recorded(self) -> frozenset[str]:
        """IDs of the questions already in the file."""
        with self._lock:
            return frozenset(self._recorded)

    def is_recorded(self, question_id: str) -> bool:
        """Whether the file already holds this question (a resumed recording skips it)."""
        with self._lock:
            return question_id in self._recorded

    def pending(self, question_ids: Iterable[str]) -> list[str]:
        """The given question IDs that are not recorded yet, in the given order."""
        with self._lock:
            return [q for q in question_ids if q not in self._recorded]

    def _reserve(self, question_id: str) -> None:
        with self._lock:
            if question_id in self._recorded or question_id in self._open:
                state = "already recorded" if question_id in self._recorded else "being recorded"
                raise RecordingError(
                    f"{self.path}: question {question_id!r} is {state}; "
                    "use pending() to skip recorded questions"
                )
            self._open.add(question_id)

    def record(self, result: QuestionResult) -> None:
        """Append one finished question's result (validated) and flush it to disk."""
        if not isinstance(result, QuestionResult):
            raise RecordingError(
                f"{self.path}: record() takes a QuestionResult (ragtriage.schemas); found "
                f"{type(result).__name__}"
            )
        if problems := refused_problems(result, str(self.path)):  # as `evaluate` would
            raise InputError(problems)
        try:  # on the line as written: no walk over every text of every result
            data = (json_line(result.model_dump(mode="json")) + "\n").encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(unwritable_problems(result, str(self.path))) from None
        with self._lock:
            if result.question_id in self._recorded:
                raise RecordingError(
                    f"{self.path}: question {result.question_id!r} is already recorded"
                )
            self._append(data)
            self._recorded.add(result.question_id)
            self._open.discard(result.question_id)

    @contextmanager
    def question(self, question_id: str) -> Iterator[QuestionRecording]:
        """Record one question: stages are set on the yielded object (or by wrapped functions).

        The result is written when the block ends normally; an exception leaves the question
        unrecorded (a later run records it).
        """
        try:  # an ID the run schema refuses is refused before the work, not after it
            QuestionResult(question_id=question_id)
        except ValidationError as exc:
            raise InputError(pydantic_problems(exc, str(self.path), None)) from None
        self._reserve(question_id)
        recording = QuestionRecording(question_id, str(self.path))
        token = self._current.set(recording)
        try:
            yield recording
            self.record(recording.result())
        finally:
            self._current.reset(token)
            with self._lock:
                self._open.discard(question_id)

    def current(self) -> QuestionRecording:
        """The question open in this thread or asyncio task."""
        recording = self._current.get()
        if recording is None:
            raise RecordingError(
                "no question is being recorded here: call the wrapped function inside "
                "`with recorder.question(ID):` (or a function wrapped with recorder.per_question)"
            )
        return recording
