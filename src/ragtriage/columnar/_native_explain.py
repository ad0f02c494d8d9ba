"""One native run's `RunEvaluation` from its arrays: the explanations, a chunk at a time.

The numbers and stage flags come from the arrays (`_native_layers`); a row's record holds
them as a view of the run's columns (`ColumnRow`). Each question's record and details are put
together from the arrays and what the reader found of its question and result
(`QuestionDetails`, in `_native_details`), without a view; its diagnosis findings come from
the checks of the stages the arrays found failing, on its view, built only for such a question
(or for every one when a registered stage must check it), else from what the arrays found of
it (`StageRow`, in `_native_stage_row`). Both are built `CHUNK` questions at
a time (the failing questions and their results read again from the files by line offset,
one chunk's views alive at a time), given what the arrays already found of each question
(`Explained`, in `_native_found`) so nothing is found twice. A large run's chunks
are shared between this process and forked workers (`executors.alongside`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

import numpy as np

from ..calibration import CalibrationRecord
from ..detectors import BoundaryQuestions, boundary_questions, run_boundaries
from ..diagnosis import (
    INPUT_STAGES,
    OK,
    VERSION_STAGES,
    QuestionDiagnosis,
    detected_stages,
    diagnose_view,
    explain_inputs,
    run_diagnosis,
    stage_order,
    verdict_fields,
    verdicts_from_fields,
)
from ..evaluation import QuestionRecord, RunEvaluation, assemble_run
from ..executors import CAN_FORK, alongside
from ..loading import SnapshotIndex
from ..metrics import Measure, PerQuestion, QuestionView, build_view
from ._native_details import Details
from ._native_found import Explained
from ._native_labels import Added, with_labels
from ._native_questions import QuestionModels
from ._native_records import Records
from ._native_run import RunColumns
from ._native_stage_row import ChunkGroups, StageRow
from ._row_columns import ColumnRow, kept_columns, score_rows


@dataclass(frozen=True)
class RunExtras:
    """What one run's result states besides its records (as `evaluate` states it)."""

    no_result: tuple[int, ...]
    """The rows of the selected questions without a result, in evaluation-set order."""
    self_labelled: tuple[str, ...]
    """Measures computed from labels made by the run's own generator."""
    calibrations: Sequence[CalibrationRecord]
    """The calibration records given."""


CHUNK = 1_000
"""Questions whose views are held at once while a run's explanations are built."""


_PER_WORKER = 10_000
"""Questions worth a forked worker's start when a run's explanations are spread over
workers (each also pickles its details and verdicts back)."""

_SENT = 5
"""Chunks explained at once (by a forked worker: and sent back)."""

_FIRST = 8
"""Shares of `_SENT` chunks given to each forked worker at first (`alongside`): about as
long to explain as this process takes to explain its first share and make the score
tables."""

_Part = tuple[
    list[QuestionRecord], list[list[Details]], list[QuestionDiagnosis], list[BoundaryQuestions],
]
"""Explanations of consecutive chunks: records, each chunk's details (until this process makes
the records from them), verdicts and the questions each boundary check names, per chunk."""


def _packed(part: _Part) -> tuple[Any, ...]:
    records, found, verdicts, bounds = part
    return records, found, verdict_fields(verdicts), bounds


def _unpacked(sent: tuple[Any, ...]) -> _Part:
    records, found, fields, bounds = sent
    return records, found, verdicts_from_fields(fields), bounds


def run_evaluation(
    source: Records, run: RunColumns, rows: list[int], questions: QuestionModels,
    index: SnapshotIndex,
    arrays: tuple[dict[str, PerQuestion], dict[str, np.ndarray], Explained],
    chosen: tuple[Measure, ...], added: Added, extras: RunExtras,
    workers: int = 1,
) -> RunEvaluation:
    """One run's `RunEvaluation`: numbers, stage flags, records and details from the arrays, the
    failing stages explained by their checks on the failing rows' views, built `CHUNK` questions
    at a time (label sources and boundary questions merged over the chunks; the permission
    section found once over the arrays), the chunks spread over up to `workers` processes (this
    one and forked ones) when there are many; the result builds its views again from the files
    when asked for them. Each question is read as a model here, where its view needs it.
    `added`: the run's labels from label files; `rows` are the rows it answered
    (`extras.no_result`: the others). `arrays` are consumed: their score and finding columns are
    emptied once read."""
    scores, findings, explained = arrays
    own = explained.questions
    version, flagged = own.version_question, explained.stage_flags()
    build = RunViews(source, run, questions, index, explained, added)
    result_of = build.result_of(rows)

    @cache
    def tables() -> tuple[
        dict[str, Any], dict[str, Any], dict[str, Any], dict[str, PerQuestion]
    ]:
        """Each row's scores, `cannot_judge` and `uncertain` counts, in `chosen` order (the
        records' views of them), and the columns the run's aggregates read: made when the
        first records are (after forked workers have started: they need none), `scores` then
        consumed (every row's columns are read; a million questions' are several hundred
        MB)."""
        columns = score_rows(scores, chosen, rows)
        kept = kept_columns(scores, chosen, rows)
        scores.clear()
        return (
            {m.name: columns[m.name][0] for m in chosen},
            {m.name: column for m in chosen if (column := columns[m.name][1]) is not None},
            {m.name: column for m in chosen if (column := columns[m.name][2]) is not None},
            kept,
        )

    def made(starts: Sequence[int], found: Sequence[list[Details]]) -> list[QuestionRecord]:
        """The records of the chunks at `starts`, given each one's details."""
        score_table, count_table, uncertain_table, _ = tables()
        records: list[QuestionRecord] = []
        for start, details in zip(starts, found, strict=True):
            part = rows[start : start + CHUNK]
            places = range(start, start + len(part))
            records += own.records(
                part, result_of[start : start + CHUNK], [own.tags(row) for row in part],
                [ColumnRow(score_table, n) for n in places], details,
                [ColumnRow(count_table, n) for n in places],
                [ColumnRow(uncertain_table, n) for n in places],
            )
        return records

    def explain(starts: Sequence[int]) -> _Part:
        found: list[list[Details]] = []
        verdicts: list[QuestionDiagnosis] = []
        bounds = []
        for start in starts:
            part = rows[start : start + CHUNK]
            results = result_of[start : start + CHUNK]
            flags = flagged(results)
            details = own.details(part, results, flags)
            found.append(details)
            every, fired = stages_to_check(findings, part)  # here: in every process's share
            # A view only for a question with a stage to check, or to explain that the
            # arrays' inputs do not (`diagnosis.INPUT_STAGES`, `VERSION_STAGES`).
            checked = range(len(part)) if every else [
                at for at in sorted(fired) if not fired[at] <= INPUT_STAGES
                or (version[part[at]] and not fired[at].isdisjoint(VERSION_STAGES))
            ]
            views = dict(zip(checked, build([part[at] for at in checked]), strict=True))
            chunk = ChunkGroups(own, part)
            for at, (row, result) in enumerate(zip(part, results, strict=True)):
                view = views.get(at)
                verdicts.append(
                    diagnose_view(view, fired.get(at, every)) if view is not None
                    else explain_inputs(
                        StageRow(own, chunk, at, row, result, index, flags[at]),
                        fired.get(at, every),
                        questions.ids[row], own.tags(row), own.split(row),
                    )
                )
            bounds.append(boundary_questions([questions.ids[row] for row in part], details))
            del views  # before the next chunk's are built: one chunk's views alive at a time
        return [], found, verdicts, bounds

    def finish(index: int, part: _Part) -> _Part:
        # A forked worker sends back the details, not the records: this process makes them
        # from its own columns for less than they cost pickled there and unpickled here.
        _, found, verdicts, bounds = part
        return made(given[index], found), [], verdicts, bounds

    chunks = list(range(0, len(rows), CHUNK))
    shares = max(1, min(workers if CAN_FORK else 1, len(rows) // _PER_WORKER))
    # A few chunks at a time: this process explains them from the first, forked workers from
    # the last (each few sent back as soon as explained), until they meet.
    given = [chunks[at : at + _SENT] for at in range(0, len(chunks), _SENT)]
    if shares > 1:  # a JSON document's records parsed here once, inherited by forked workers
        build([])
    # A forked worker's verdicts come back as their fields, which pickle faster.
    # This process's first `finish` makes the score tables (`tables`: 1.1 s at a million
    # questions): a forked worker has its first chunks meanwhile.
    parts = alongside(
        explain, [(part,) for part in given], shares, then=finish, wire=(_packed, _unpacked),
        first=_FIRST,
    )
    findings.clear()
    kept = tables()[3]
    records = [r for part in parts for r in part[0]]
    verdicts = [v for part in parts for v in part[2]]
    bounds = [b for part in parts for b in part[3]]
    # Whether k cut the ranking of some scored question's result: with none scored (a
    # selection keeping no question, or no result for any), no k is used.
    k_used = bool(rows) and bool(run.context_derived[result_of].any())
    # The run's level: its questions' that require evidence, with or without a result.
    level = explained.run_level([*rows, *extras.no_result])
    no_result = tuple(questions.ids[row] for row in extras.no_result)
    row_of: dict[str, int] = {}  # made when views are first asked for

    def build_views(ids: Sequence[str]) -> tuple[QuestionView, ...]:
        if not row_of:
            row_of.update((questions.ids[row], row) for row in rows)
        return tuple(build([row_of[qid] for qid in ids]))

    name = run.header.name
    return assemble_run(
        name, run.header.provenance, run.k, level, records, chosen, kept,
        label_sources=explained.label_sources(
            chosen, {m.name: kept[m.name].applicable for m in chosen}, result_of,
            extras.calibrations,
        ),
        boundaries=run_boundaries(
            bounds, explained.permissions(rows, result_of), extras.self_labelled
        ),
        diagnosis=run_diagnosis(
            name, verdicts, k=run.k, evidence_level=level, no_result=no_result, k_used=k_used
        ),
        build_views=build_views,
        self_labelled=extras.self_labelled,
        no_result=no_result,
        k_used=k_used,
        file=source.label,
    )


class RunViews:
    """Builds the views of some question rows of one run (`build(rows)`), the questions and
    results read again from their records: what the views need, and nothing more (the
    result keeps it for its views). `added`: the run's labels from label files."""

    def __init__(
        self, source: Records, run: RunColumns, questions: QuestionModels,
        index: SnapshotIndex, explained: Explained, added: Added,
    ) -> None:
        self._source, self._questions, self._added = source, questions, added
        self._index = index
        self._k, self._found_of, self._level_of = run.k, explained.found_of(), explained.level_of()
        self._by_row = np.empty(len(questions.ids), dtype=np.int64)
        self._by_row[run.row] = np.arange(run.row.size, dtype=np.int64)

    def result_of(self, rows: Sequence[int]) -> list[int]:
        """The run's result index of each row (rows it answered)."""
        return self._by_row[rows].tolist() if rows else []

    def __call__(self, part: Sequence[int]) -> list[QuestionView]:
        source, at = self._source, self.result_of(part)
        # Parsed, not validated again: the first read's checks accepted every record.
        found = source.parsed(at, partial(with_labels, added=self._added) if self._added else None)
        held = source.held()
        models = self._questions.at(part)
        index, level_of, k = self._index, self._level_of, self._k
        return [
            build_view(
                models[row], found[n], index, level_of(row), k, arrays,
                None if held is None else held[n],
            )
            for row, n, arrays in zip(part, at, self._found_of(part, at), strict=True)
        ]


def stages_to_check(
    findings: dict[str, np.ndarray], rows: Sequence[int]
) -> tuple[frozenset[str], dict[int, set[str]]]:
    """`(every, fired)`: the diagnosis stages to explain or check on each row's view
    (`diagnosis.diagnose_view`), by position n in `rows`: `fired[n]` for a row the arrays
    found failing at some stage (`diagnosis.detected_stages`: those stages, each explained
    only where it failed, and `every`), else `every`: the stages registered with
    `diagnosis.register_stage` (a check on one question's view, without an array, checked on
    every row's view). A set only for a row that fired: a million empty sets would hold a few
    hundred MB."""
    failing = [stage for stage in stage_order() if stage != OK]
    detected = detected_stages()
    every = frozenset(stage for stage in failing if stage not in detected)
    fired: dict[int, set[str]] = {}
    for stage in failing:
        if stage in every:
            continue
        for n in np.flatnonzero(findings[stage][rows]).tolist():
            fired.setdefault(n, set(every)).add(stage)
    return every, fired
