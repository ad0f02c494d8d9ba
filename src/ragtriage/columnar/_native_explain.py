"""One native run's `RunEvaluation` from its arrays: the explanations, a chunk at a time.

The numbers and stage flags come from the arrays (`_native_layers`); each question's
explanation (details, diagnosis findings, label sources, the boundary section) from the
reference functions on its view, built `CHUNK` questions at a time, given what the arrays
already found (flagged context items, missing evidence groups) so no text is scanned twice.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from ..calibration import CalibrationRecord, merge_label_sources, run_label_sources
from ..detectors import merge_boundaries, run_boundaries
from ..diagnosis import OK, QuestionDiagnosis, diagnose_view, run_diagnosis, stage_order
from ..evaluation import (
    QuestionRecord,
    RunEvaluation,
    assemble_run,
    k_was_used,
    question_details,
    question_record,
)
from ..loading import EvidenceLevel, SnapshotIndex
from ..metrics import Measure, PerQuestion, QuestionView, Score, build_view
from ..schemas import LabelPolicy, Question, QuestionResult
from ._native_labels import Added, with_labels
from ._native_layers import Matcher, _owner, covered_groups
from ._native_read import Codes, EvalColumns, Rereader
from ._native_run import RunColumns
from ._native_snapshot import SnapshotFlags
from ._trec import _Fallback


def _columns(
    scores: dict[str, PerQuestion], chosen: tuple[Measure, ...], rows: list[int]
) -> dict[str, tuple[list[Score | None], list[int] | None]]:
    """Per measure the arrays compute: the rows' scores and `cannot_judge` counts."""
    out: dict[str, tuple[list[Score | None], list[int] | None]] = {}
    at = np.array(rows, dtype=np.int64)
    made: dict[tuple[float, float], Score] = {}  # a few distinct fractions: one object each
    for m in chosen:
        part = scores.get(m.name)
        if part is None:
            continue
        pairs = zip(part.numerator[at].tolist(), part.denominator[at].tolist(), strict=True)
        found = [
            None if not pair[1] else made.get(pair) or made.setdefault(pair, Score(*pair))
            for pair in pairs
        ]
        left_out = None if part.cannot_judge is None else part.cannot_judge[at].tolist()
        out[m.name] = (found, left_out)
    return out


@dataclass(frozen=True)
class RunExtras:
    """What one run's result states besides its records (as `evaluate` states it)."""

    no_result: tuple[str, ...]
    """Selected questions without a result, in evaluation-set order."""
    self_labelled: tuple[str, ...]
    """Measures computed from labels made by the run's own generator."""
    calibrations: Sequence[CalibrationRecord]
    """The calibration records given."""


class Explained:
    """What one run's explanations ask of the arrays, found once for the run: per result, the
    flagged final-context IDs (`detectors.flag_context`, from the scan of every text the
    measures already did); per question row, the required groups its final context misses."""

    def __init__(
        self, ev: EvalColumns, run: RunColumns, codes: Codes, level_document: np.ndarray,
        matcher: Matcher, flags: SnapshotFlags,
    ) -> None:
        items, offsets = run.context
        owner = _owner(offsets)
        flagged = run.context_flag > 0
        side = run.context_flag < 0
        flagged[side] = flags(items[side])
        ids = list(codes.code)
        # A result with an ID the snapshot does not know is scanned by the reference.
        self._unknown = set(owner[items < 0].tolist())
        self._flagged: dict[int, list[str]] = {}
        for at in np.flatnonzero(flagged).tolist():
            self._flagged.setdefault(int(owner[at]), []).append(ids[int(items[at])])
        covered = covered_groups(
            matcher, codes, level_document, run.row[owner], items, int(ev.group_grade.size)
        )
        lost = np.flatnonzero(~covered)
        lost_row = _owner(ev.group_offsets)[lost]
        self._missing: dict[int, list[int]] = {}
        for row, at in zip(lost_row.tolist(), (lost - ev.group_offsets[lost_row]).tolist(),
                           strict=True):
            self._missing.setdefault(row, []).append(at)

    def flagged(self, result: int) -> tuple[str, ...] | None:
        """The flagged context IDs of a result (None: left to `flag_context`)."""
        return None if result in self._unknown else tuple(self._flagged.get(result, ()))

    def missing(self, row: int) -> list[int]:
        """The required groups (indices) a question row's final context does not satisfy."""
        return self._missing.get(row, [])


CHUNK = 5_000
"""Questions whose views are held at once while a run's explanations are built."""


def run_evaluation(
    path: Path, run: RunColumns, rows: list[int], questions: list[Question],
    views_of: tuple[SnapshotIndex, dict[int, EvidenceLevel], LabelPolicy],
    arrays: tuple[dict[str, PerQuestion], dict[str, np.ndarray], np.ndarray, Explained],
    chosen: tuple[Measure, ...], level: str, added: Added, extras: RunExtras,
) -> RunEvaluation:
    """One run's `RunEvaluation`: numbers and stage flags from the arrays, explanations from
    the reference functions on the rows' views (all stages for exotic rows), built `CHUNK`
    questions at a time (label sources and boundaries merged over the chunks); the result
    builds its views again from the files when asked for them. `added`: the run's labels from
    label files; `rows` are the rows it answered (`extras.no_result`: the others)."""
    index, levels, policy = views_of
    scores, findings, exotic, explained = arrays
    by_row = np.empty(len(questions), dtype=np.int64)
    by_row[run.row] = np.arange(run.row.size, dtype=np.int64)
    results = Rereader(path, "run", "results")

    def build(part: Sequence[int]) -> list[QuestionView]:
        found = results.at(int(by_row[row]) for row in part)
        views = []
        for row in part:
            try:
                result = QuestionResult.model_validate(
                    with_labels(found[int(by_row[row])], added)
                )
            except ValidationError as exc:  # passed the fast checks: the reference reports it
                raise _Fallback("result model") from exc
            views.append(build_view(questions[row], result, index, levels[row], run.k, policy))
        return views

    failing = [stage for stage in stage_order() if stage != OK]
    fired = {stage: findings[stage][rows].tolist() for stage in failing}
    columns = _columns(scores, chosen, rows)
    records: list[QuestionRecord] = []
    verdicts: list[QuestionDiagnosis] = []
    sources = []
    bounds = []
    k_used = not rows
    for start in range(0, len(rows), CHUNK):
        part = rows[start : start + CHUNK]
        views = build(part)
        done = len(records)
        for n, (row, view) in enumerate(zip(part, views, strict=True), start=start):
            if exotic[row]:
                records.append(
                    question_record(
                        view,
                        {m.name: m.compute(view) for m in chosen},
                        question_details(view),
                        {m.name: c for m in chosen if (c := m.cannot_judge(view)) is not None},
                    )
                )
                verdicts.append(diagnose_view(view))
                continue
            computed: dict[str, Score | None] = {}
            left_out: dict[str, int] = {}
            for m in chosen:
                column = columns.get(m.name)
                if column is None:
                    computed[m.name] = m.compute(view)
                    if (count := m.cannot_judge(view)) is not None:
                        left_out[m.name] = count
                    continue
                computed[m.name] = column[0][n]
                if column[1] is not None:
                    left_out[m.name] = column[1][n]
            details = question_details(
                view, flagged_context=explained.flagged(int(by_row[row])),
                missing_groups=explained.missing(row),
            )
            records.append(question_record(view, computed, details, left_out))
            verdicts.append(diagnose_view(view, {s for s in failing if fired[s][n]}))
        mine = records[done:]
        k_used = k_used or k_was_used(views)
        sources.append(run_label_sources(chosen, views, [r.scores for r in mine]))
        bounds.append(run_boundaries(views, extras.self_labelled, [r.details for r in mine]))
    row_of = {questions[row].id: row for row in rows}
    name = run.header.name
    return assemble_run(
        name, run.header.provenance, run.k, level, records, chosen,
        label_sources=merge_label_sources(sources, chosen, extras.calibrations),
        boundaries=(
            merge_boundaries(bounds) if bounds else run_boundaries((), extras.self_labelled)
        ),
        diagnosis=run_diagnosis(
            name, verdicts, k=run.k, evidence_level=level, no_result=extras.no_result,
            k_used=k_used,
        ),
        build_views=lambda ids: tuple(build([row_of[qid] for qid in ids])),
        self_labelled=extras.self_labelled,
        no_result=extras.no_result,
        k_used=k_used,
        file=str(path),
    )


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused (when it runs) for the block, then resumed.

    The explanations create millions of small acyclic objects (models, views, records) that
    reference counting frees; the collector found nothing among them but, scanning every live
    one again and again, took about half the path's CPU time at 20,000 questions.
    """
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()
