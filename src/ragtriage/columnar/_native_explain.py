"""One native run's `RunEvaluation` from its arrays: the explanations, a chunk at a time.

The numbers and stage flags come from the arrays (`_native_layers`); a row's record holds
them as a view of the run's columns (`ColumnRow`). Each question's explanation (details,
diagnosis findings, label sources, the boundary section) comes from the explaining functions
(`question_details`, the diagnosis checks, label sources, boundaries) on its view, built
`CHUNK` questions at a time (the questions and results read again from the files by line
offset, one chunk's views alive at a time), given what the arrays already found (flagged
context items, missing evidence groups, the stages holding a stale item, each snapshot item's
sensitive values, scanned once) so no text is scanned twice. A large run's chunks are shared
between this process and forked workers (`executors.alongside`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..calibration import (
    CalibrationRecord,
    LabelSources,
    merge_label_sources,
    run_label_sources,
)
from ..detectors import (
    NO_FLAGS,
    PERMISSION_STAGES,
    ContextFindings,
    RunBoundaries,
    SensitiveFinding,
    StageFlags,
    find_sensitive,
    item_text,
    merge_boundaries,
    run_boundaries,
)
from ..diagnosis import OK, QuestionDiagnosis, diagnose_view, run_diagnosis, stage_order
from ..evaluation import (
    LevelChoice,
    QuestionRecord,
    RunEvaluation,
    assemble_run,
    question_details,
    question_record,
    run_evidence_level,
)
from ..executors import CAN_FORK, alongside
from ..loading import EvidenceLevel, SnapshotIndex
from ..metrics import (
    NO_EVIDENCE,
    EvidenceFound,
    Found,
    InvalidCitations,
    Measure,
    PerQuestion,
    QuestionView,
    build_view,
)
from ..schemas import LabelPolicy
from ._native_labels import Added, with_labels
from ._native_layers import (
    StageItems,
    StageMatch,
    _owner,
    canary_reached,
    cited_in_context,
    validly_cited,
)
from ._native_questions import QuestionModels
from ._native_read import Codes, EvalColumns
from ._native_records import Records
from ._native_run import RunColumns
from ._native_snapshot import SnapshotFlags
from ._row_columns import SHARED_TABLES, ColumnRow, kept_columns, score_rows


@dataclass(frozen=True)
class RunExtras:
    """What one run's result states besides its records (as `evaluate` states it)."""

    no_result: tuple[int, ...]
    """The rows of the selected questions without a result, in evaluation-set order."""
    self_labelled: tuple[str, ...]
    """Measures computed from labels made by the run's own generator."""
    calibrations: Sequence[CalibrationRecord]
    """The calibration records given."""


class Explained:
    """What one run's explanations ask of the arrays, found once for the run: per result, the
    flagged final-context IDs (`detectors.flag_context`, from the scan of every text the
    measures already did) and the items satisfying a required group; per required group,
    where its first satisfying item stands in each stage (`StageMatch.first`)."""

    def __init__(
        self, ev: EvalColumns, run: RunColumns, codes: Codes,
        found: tuple[dict[str, StageMatch], dict[str, StageItems]],
        flags: SnapshotFlags, index: SnapshotIndex, level: LevelChoice,
    ) -> None:
        matched, at_stages = found
        self._level, self._document_level = level, ev.level_document
        self._requires = np.diff(ev.group_offsets) > 0
        items, offsets = run.context
        owner = _owner(offsets)
        flagged = run.context_flag > 0
        side = run.context_flag < 0
        flagged[side] = flags(items[side])
        ids = list(codes.code)
        self._ids, self._index = ids, index
        self._items, self._offsets = items, offsets
        # A result whose context records a text is scanned for sensitive values on its view
        # (the recorded text wins for its ID). Every context ID is the snapshot's: the reader
        # refuses one it does not know.
        self._recorded = np.bincount(owner[~side], minlength=run.row.size) > 0
        self._sensitive: dict[int, tuple[SensitiveFinding, ...]] = {}
        self._flagged: dict[int, list[str]] = {}
        for at in np.flatnonzero(flagged).tolist():
            self._flagged.setdefault(int(owner[at]), []).append(ids[int(items[at])])
        # Per required group: its first satisfying item's position among the candidates, in
        # the final ranking (the reranked list when the result has one) and in the context.
        result_of = np.zeros(len(ev.ids), dtype=np.int64)
        result_of[run.row] = np.arange(run.row.size, dtype=np.int64)
        reranked = run.has_reranked[result_of[_owner(ev.group_offsets)]]
        firsts = [matched[name].first for name in ("candidates", "reranked", "context")]
        final = np.where(reranked, firsts[1], firsts[0])
        self._first = np.stack([firsts[0], final, firsts[2]], axis=1).astype(np.int32)
        self._groups = ev.group_offsets
        # Per result: the codes of its items (in any stage) satisfying a required group.
        units = len(ids) + 1  # a key is result * units + code
        keys = np.unique(np.concatenate([
            _owner(flat[1])[matched[name].at] * units + flat[0][matched[name].at]
            for name, flat in (("candidates", run.candidates), ("reranked", run.reranked),
                               ("context", run.context))
        ]))
        self._found = keys % units
        self._found_at = np.searchsorted(keys, np.arange(run.row.size + 1, dtype=np.int64) * units)
        # Per result: its candidates, reranked list and context (as snapshot codes).
        self._lists = (run.candidates, run.reranked, run.context)
        self._has_reranked, self._derived = run.has_reranked, run.context_derived
        # Per result: its claims without a valid citation, and each one's cited IDs outside the
        # context (positions in the claim's citations).
        inside = cited_in_context(run, codes)
        self._claims = run.claim_offsets
        self._bad = np.flatnonzero(~validly_cited(run, inside))
        self._bad_at = np.searchsorted(
            _owner(run.claim_offsets)[self._bad], np.arange(run.row.size + 1, dtype=np.int64)
        )
        self._cited = run.citations[1]
        self._outside = np.flatnonzero(~inside)
        self._outside_claim = _owner(self._cited)[self._outside]
        # Per result: the reader's sensitive-content scan found nothing in its answer (None:
        # the answers were not scanned).
        scanned = run.sensitive_answer.size == run.row.size
        self._clean_answers = ~run.sensitive_answer if scanned else None
        # The results whose question's canary reached the context (few).
        self._reached = frozenset(np.flatnonzero(canary_reached(ev, run, codes)).tolist())
        # Per result: its stale items, unreadable documents and items of another version, by
        # stage, in file order (few results have any: held as sorted arrays).
        marks = []
        for number, seen in enumerate(at_stages.values()):
            for kind, mask, value in ((0, seen.stale, seen.items),
                                      (1, seen.closed, codes.document_of[seen.items]),
                                      (2, seen.wrong_version, seen.items)):
                where = np.flatnonzero(mask)
                marks.append(np.stack([
                    seen.owner[where], np.full(where.size, _KINDS * number + kind), where,
                    value[where],
                ]))
        flagged_items = np.concatenate(marks, axis=1)
        order = np.lexsort(flagged_items[::-1][1:])  # by result, stage and kind, position
        self._mark_key, self._mark_code = flagged_items[1][order], flagged_items[3][order]
        self._marks_at = np.searchsorted(
            flagged_items[0][order], np.arange(run.row.size + 1, dtype=np.int64)
        )

    def flagged(self, result: int) -> tuple[str, ...]:
        """The flagged context IDs of a result."""
        return tuple(self._flagged.get(result, ()))

    def sensitive(self, result: int) -> ContextFindings | None:
        """The sensitive findings of a result's context texts, each snapshot item's text
        scanned once for the run (None: left to `detectors.scan_view`)."""
        if self._recorded[result]:
            return None
        known, ids = self._sensitive, self._ids
        out = []
        start, end = int(self._offsets[result]), int(self._offsets[result + 1])
        for code in self._items[start:end].tolist():
            found = known.get(code)
            if found is None:
                found = known[code] = find_sensitive(item_text(ids[code], self._index) or "")
            if found:
                out.append((ids[code], found))
        return tuple(out)

    def level_of(self) -> Callable[[int], EvidenceLevel]:
        """A question row's evidence level: the level asked for, or for `auto` what its
        required evidence IDs name (all documents: `document`, else `chunk`; the reader's
        `EvalColumns.level_document`)."""
        choice, document = self._level, self._document_level

        def level(row: int) -> EvidenceLevel:
            if choice != "auto":
                return choice
            return "document" if document[row] else "chunk"

        return level

    def run_level(self, rows: Sequence[int]) -> str:
        """A run's evidence level over its question rows (with or without a result): the one
        level its questions that require evidence share, `mixed`, or `document` when none
        requires any."""
        at = np.asarray(rows, dtype=np.int64)
        at = at[self._requires[at]]
        if self._level != "auto" and at.size:
            return self._level
        document = self._document_level[at]
        levels = {"document"} if document.any() else set()
        return run_evidence_level(levels | ({"chunk"} if not document.all() else set()))

    def sensitive_answer(self, result: int) -> tuple[SensitiveFinding, ...] | None:
        """No findings for an answer the reader's scan found clean (None: left to
        `detectors.scan_view`: an answer with findings, or answers not scanned)."""
        clean = self._clean_answers
        return () if clean is not None and clean[result] else None

    def found_of(self) -> Callable[[int, int], Found]:
        """What the arrays found of a question row's result (by row and result index):
        where its required groups are satisfied, its stale items and unreadable documents
        per stage, its claims without a valid citation. A look-up that holds nothing else of
        the run."""
        groups, first, ids = self._groups, self._first, self._ids
        found, found_at = self._found, self._found_at
        mark_key, mark_code, marks_at = self._mark_key, self._mark_code, self._marks_at
        stages = len(PERMISSION_STAGES)

        def evidence(row: int, result: int) -> EvidenceFound:
            start, end = groups[row], groups[row + 1]
            if start == end:
                return NO_EVIDENCE
            where = tuple(
                (None if c < 0 else c, None if r < 0 else r, None if x < 0 else x)
                for c, r, x in first[start:end].tolist()
            )
            items = found[found_at[result] : found_at[result + 1]].tolist()
            return EvidenceFound(where, frozenset([ids[code] for code in items]))

        reached = self._reached

        def flagged(result: int) -> StageFlags:
            start, end = marks_at[result], marks_at[result + 1]
            if start == end and result not in reached:
                return NO_FLAGS
            seen: list[dict[str, None]] = [{} for _ in range(_KINDS * stages)]
            for key, code in zip(mark_key[start:end].tolist(), mark_code[start:end].tolist(),
                                 strict=True):
                seen[key][ids[code]] = None  # first seen first, once
            stale, leaked, wrong = (
                tuple(tuple(seen[_KINDS * n + kind]) for n in range(stages))
                for kind in range(_KINDS)
            )
            return StageFlags(stale, leaked, wrong, result in reached)

        claims, bad, bad_at = self._claims, self._bad, self._bad_at
        cited, outside, outside_claim = self._cited, self._outside, self._outside_claim

        def invalid(result: int) -> InvalidCitations:
            start, end = bad_at[result], bad_at[result + 1]
            if start == end:
                return ()
            out = []
            for claim in bad[start:end].tolist():
                lo, hi = np.searchsorted(outside_claim, (claim, claim + 1)).tolist()
                positions = (outside[lo:hi] - cited[claim]).tolist()
                out.append((claim - int(claims[result]), tuple(positions)))
            return tuple(out)

        ids_at, reranked, derived = self._lists, self._has_reranked, self._derived

        def listed(stage: int, result: int) -> tuple[str, ...]:
            items, offsets = ids_at[stage]
            return tuple([ids[code] for code in items[offsets[result] : offsets[result + 1]]
                          .tolist()])

        def of(row: int, result: int) -> Found:
            return Found(
                listed(0, result), listed(1, result) if reranked[result] else None,
                listed(2, result), bool(derived[result]), evidence(row, result),
                flagged(result), invalid(result),
            )

        return of


_KINDS = 3
"""What a stage item is marked for in `Explained`: stale, unreadable, of another version."""

CHUNK = 1_000
"""Questions whose views are held at once while a run's explanations are built."""


_PER_WORKER = 10_000
"""Questions worth a forked worker's start when a run's explanations are spread over
workers (each also pickles its records back)."""

_SENT = 10
"""Chunks a forked worker explains and sends back at once."""

_Part = tuple[
    list[QuestionRecord], list[QuestionDiagnosis], list[dict[str, LabelSources]],
    list[RunBoundaries],
]
"""Explanations of consecutive chunks: records, verdicts, label sources and boundary section
per chunk."""


def run_evaluation(
    source: Records, run: RunColumns, rows: list[int], questions: QuestionModels,
    views_of: tuple[SnapshotIndex, LabelPolicy],
    arrays: tuple[dict[str, PerQuestion], dict[str, np.ndarray], Explained],
    chosen: tuple[Measure, ...], added: Added, extras: RunExtras,
    workers: int = 1,
) -> RunEvaluation:
    """One run's `RunEvaluation`: numbers and stage flags from the arrays, explanations from
    the explaining functions on the rows' views, built `CHUNK`
    questions at a time (label sources and boundaries merged over the chunks), the chunks
    spread over up to `workers` processes (this one and forked ones) when there are many; the
    result builds its views again from the files when asked for them. Each question is read
    as a model here, where its view needs it. `added`: the run's labels from label files;
    `rows` are the rows it
    answered (`extras.no_result`: the others). `arrays` are consumed: their score and finding
    columns are emptied once read."""
    index, policy = views_of
    scores, findings, explained = arrays
    by_row = np.empty(len(questions.ids), dtype=np.int64)
    by_row[run.row] = np.arange(run.row.size, dtype=np.int64)
    result_of = by_row[rows].tolist() if rows else []

    def labelled(record: Any) -> Any:
        return with_labels(record, added)

    # What the views need, and nothing more: the result keeps `build` for its views.
    k, found_of, level_of = run.k, explained.found_of(), explained.level_of()

    def build(part: Sequence[int]) -> list[QuestionView]:
        at = [int(by_row[row]) for row in part]
        # Parsed, not validated again: the first read's checks accepted every record.
        found = source.parsed(at, labelled if added else None)
        held = source.held()
        models = questions.at(part)
        return [
            build_view(
                models[row], found[n], index, level_of(row), k,
                policy, found_of(row, n),
                None if held is None else held[n],
            )
            for row, n in zip(part, at, strict=True)
        ]

    # The stages the arrays found failing; a stage registered with `diagnosis.register_stage`
    # (a check on one question's view) has no array and is checked on every row's view.
    failing = [stage for stage in stage_order() if stage != OK]
    registered = {stage for stage in failing if stage not in findings}
    # Per row, the stages to explain: the registered ones, and those the arrays found failing
    # (a set only for such a row: a million empty sets would hold a few hundred MB).
    every = frozenset(registered)
    fired: dict[int, set[str]] = {}
    for stage in failing:
        if stage in registered:
            continue
        for n in np.flatnonzero(findings[stage][rows]).tolist():
            fired.setdefault(n, set(every)).add(stage)
    columns = score_rows(scores, chosen, rows)
    # Each row's scores and `cannot_judge` counts, in `chosen` order: views of the columns.
    score_table = {m.name: columns[m.name][0] for m in chosen}
    count_table = {
        m.name: column for m in chosen if (column := columns[m.name][1]) is not None
    }
    kept = kept_columns(scores, chosen, rows)
    # Consumed: every row's columns are read (a million questions' are several hundred MB).
    scores.clear()
    findings.clear()

    def explain(starts: Sequence[int]) -> _Part:
        records: list[QuestionRecord] = []
        verdicts: list[QuestionDiagnosis] = []
        sources = []
        bounds = []
        for start in starts:
            part = rows[start : start + CHUNK]
            views = build(part)
            done = len(records)
            for n, view in enumerate(views, start=start):
                computed = ColumnRow(score_table, n)
                left_out = ColumnRow(count_table, n)
                result = result_of[n]
                details = question_details(
                    view, flagged_context=explained.flagged(result),
                    sensitive_context=explained.sensitive(result),
                    sensitive_answer=explained.sensitive_answer(result),
                )
                records.append(question_record(view, computed, details, left_out))
                verdicts.append(diagnose_view(view, fired.get(n, every)))
            mine = records[done:]
            sources.append(run_label_sources(chosen, views, [r.scores for r in mine]))
            bounds.append(run_boundaries(views, extras.self_labelled, [r.details for r in mine]))
            del views  # before the next chunk's are built: one chunk's views alive at a time
        return records, verdicts, sources, bounds

    chunks = list(range(0, len(rows), CHUNK))
    shares = max(1, min(workers if CAN_FORK else 1, len(rows) // _PER_WORKER))
    # This process explains the first share of the chunks; forked workers the others, a few
    # chunks at a time (each few sent back as soon as explained, not a whole share at once).
    mine = len(chunks) // shares
    given = [chunks[:mine]] if shares > 1 else [chunks]
    given += [chunks[at : at + _SENT] for at in range(mine, len(chunks), _SENT)]
    for table in (score_table, count_table):
        SHARED_TABLES[id(table)] = table
    try:
        parts = alongside(explain, [(part,) for part in given], shares)
    finally:
        for table in (score_table, count_table):
            del SHARED_TABLES[id(table)]
    records = [r for part in parts for r in part[0]]
    verdicts = [v for part in parts for v in part[1]]
    sources = [s for part in parts for s in part[2]]
    bounds = [b for part in parts for b in part[3]]
    # Whether k cut some result's ranking (a run without results says nothing about k).
    k_used = not rows or bool(run.context_derived[result_of].any())
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
        label_sources=merge_label_sources(sources, chosen, extras.calibrations),
        boundaries=(
            merge_boundaries(bounds) if bounds else run_boundaries((), extras.self_labelled)
        ),
        diagnosis=run_diagnosis(
            name, verdicts, k=run.k, evidence_level=level, no_result=no_result,
            k_used=k_used,
        ),
        build_views=build_views,
        self_labelled=extras.self_labelled,
        no_result=no_result,
        k_used=k_used,
        file=source.label,
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
