"""Read a large JSONL file in parallel: byte ranges parsed by forked workers, then joined.

Parsing and checking JSON records is Python work bound to one core; a file of a million
results is cut into one byte range per worker (on line starts), the first range is read
here while forked processes read the others (they inherit the snapshot codes and the
evaluation set without copying them through a pipe; only their parts come back through
one), and the parts' arrays are joined in file order. Given an executor
(`executors.RayExecutor`), the ranges are read by its workers instead (a few per CPU of the
cluster, the file at the same path on every worker), whatever the file's size. Results do
not depend on the number of workers or on where they run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from functools import partial
from typing import Any, TypeVar

import numpy as np

from ..executors import CAN_FORK, Executor, alongside
from ..schemas import QuestionResult
from ._native_claims import labeller_key
from ._native_read import Codes, EvalColumns, read_evalset, rows_by_id
from ._native_records import ModelRecords, Records
from ._native_run import RunColumns, read_run
from ._trec import _Fallback

T = TypeVar("T")
C = TypeVar("C", EvalColumns, RunColumns)


_EVALSET_FRONT = 1.12
"""How much longer the byte range this process reads of an evaluation set is than each
forked process's: each of those also pickles its part, and this process unpickles it (on 2
CPUs at 1,000,000 questions this process otherwise waited 0.45-0.7 s for the other part)."""
_RUN_FRONT = 1.06
"""Likewise for a run, whose parts are mostly arrays (quicker sent: this process waited
0.7-1.0 s of 17 s)."""


def _apply(function: Callable[..., T], arguments: tuple[Any, ...]) -> T:
    return function(*arguments)


def _ranges(
    source: Records, workers: int, executor: Executor | None, front: float
) -> list[tuple[int, int]] | None:
    """The byte ranges to read apart (None: read the records whole, here); without an
    executor the first, read here, `front` times as long as each other."""
    if executor is None:
        return source.spans(workers if CAN_FORK else 1, front=front)
    return source.spans(executor.shard_count(1 << 30), min_bytes=0)


def _map(
    function: Callable[..., T], arguments: Sequence[tuple[Any, ...]], executor: Executor | None
) -> list[T]:
    if executor is None:
        return alongside(function, arguments)
    return executor.map(partial(_apply, function), arguments)


def _join_offsets(parts: Sequence[np.ndarray]) -> np.ndarray:
    """Each part's offsets (from 0) after the parts before it: shifted by where they ended
    (a part with nothing in the column, `[0]`, adds no offset)."""
    out, end = [parts[0]], parts[0][-1]
    for offsets in parts[1:]:
        out.append(offsets[1:] + end)
        end = end + offsets[-1]
    return np.concatenate(out)


def _joined(parts: Sequence[C], joined: dict[str, Any]) -> C:
    """The columns of consecutive byte ranges' parts as one (`joined`: the fields joined by
    the caller): offsets chained, (items, offsets) pairs, lists and arrays one after another;
    what is not a column (a header, the cut-off, the set's ID) is the first part's."""
    for field in fields(parts[0]):
        name, values = field.name, [getattr(p, field.name) for p in parts]
        if name in joined or not isinstance(values[0], np.ndarray | tuple | list):
            continue
        if name.endswith("_offsets"):
            joined[name] = _join_offsets(values)
        elif isinstance(values[0], tuple):
            joined[name] = (
                np.concatenate([v[0] for v in values]), _join_offsets([v[1] for v in values])
            )
        elif isinstance(values[0], list):
            joined[name] = [x for v in values for x in v]
        else:
            joined[name] = np.concatenate(values)
    return replace(parts[0], **joined)


def read_evalset_parallel(
    source: Records, codes: Codes, workers: int, executor: Executor | None = None
) -> EvalColumns:
    """`read_evalset`, over byte ranges in parallel when the file is large enough (on the
    executor's workers when one is given)."""
    ranges = _ranges(source, workers, executor, _EVALSET_FRONT)
    if ranges is None:
        read = read_evalset(source, codes)
    else:
        read = _join_evalset(
            _map(read_evalset, [(source, codes, span) for span in ranges], executor)
        )
    source.found_starts(read.line_starts)  # the records read again by these
    return read


def _join_evalset(parts: Sequence[EvalColumns]) -> EvalColumns:
    # A part's `row_of` is empty (not pickled back for nothing): one map for all the rows.
    ids = [i for part in parts for i in part.ids]
    joined: dict[str, Any] = {"ids": ids, "row_of": rows_by_id(ids)}
    # Each part's rows and groups follow those of the parts before it.
    row_base = np.cumsum([0] + [len(p.ids) for p in parts]).tolist()
    group_base = np.cumsum([0] + [p.group_grade.size for p in parts]).tolist()
    joined["alt_group"] = np.concatenate(
        [p.alt_group + b for p, b in zip(parts, group_base, strict=False)]
    )
    for name, bases in (("canary_marker", row_base), ("canary_named", row_base),
                        ("canary_instruction", row_base),
                        ("group_label", group_base)):  # keyed by row, or by group
        joined[name] = {
            key + b: x
            for p, b in zip(parts, bases, strict=False) for key, x in getattr(p, name).items()
        }
    return _joined(parts, joined)


def read_run_parallel(
    source: Records,
    evalset: EvalColumns,
    codes: Codes,
    workers: int,
    *,
    allow_missing: bool = False,
    executor: Executor | None = None,
    **options: Any,
) -> tuple[RunColumns, np.ndarray]:
    """`read_run`, over byte ranges in parallel when the file is large enough, and the rows
    it has no result for (only with `allow_missing`; else a missing result falls back).

    The rows without a result are added as empty results (no ranking, no outcome, no labels,
    read as such), so that every array follows every row; they are never scored (`evaluate`
    lists them as no result)."""
    ranges = _ranges(source, workers, executor, _RUN_FRONT)
    if ranges is None:
        run = read_run(source, evalset, codes, **options)
    else:
        parts = _map(
            _run_part, [(source, evalset, codes, options, span) for span in ranges], executor
        )
        run = _join(parts)
    source.found_starts(run.line_starts)  # the results read again by these
    answered = np.zeros(len(evalset.ids), dtype=bool)
    answered[run.row] = True
    missing = np.flatnonzero(~answered)
    # The one check that no question has two results, in a part or across parts (fewer
    # rows answered than results read), instead of a sort of every row.
    if np.count_nonzero(answered) != run.row.size or (missing.size and not allow_missing):
        raise _Fallback("results per question")
    if missing.size:
        empty = [QuestionResult(question_id=evalset.ids[row]) for row in missing.tolist()]
        given = ModelRecords(run.header.model_dump(mode="json"), empty, source.label)
        run = _join([run, read_run(given, evalset, codes, **options)])
    return run, missing


def _join(parts: Sequence[RunColumns]) -> RunColumns:
    joined: dict[str, Any] = {}
    # One table of judges: each part's indices mapped to the joined table's.
    code: dict[bytes, int] = {}
    judges: list[dict[str, Any]] = []
    remaps = []
    for part in parts:
        remap = []
        for who in part.judges:
            key = labeller_key(who)
            if key not in code:
                code[key] = len(judges)
                judges.append(who)
            remap.append(code[key])
        remaps.append(np.array([*remap, -1], dtype=np.int32))  # -1 (a person) stays -1
    joined["judges"] = tuple(judges)
    for name in ("claim_judges", "fact_judges"):
        joined[name] = np.concatenate(
            [remap[getattr(part, name)] for part, remap in zip(parts, remaps, strict=True)]
        ).astype(np.int32)
    return _joined(parts, joined)


def _run_part(
    source: Records, evalset: EvalColumns, codes: Codes, options: dict[str, Any],
    span: tuple[int, int],
) -> RunColumns:
    return read_run(source, evalset, codes, span=span, **options)
