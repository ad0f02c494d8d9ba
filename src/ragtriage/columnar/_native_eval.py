"""`evaluate_native`: a native evaluation set and runs, file in -> the `Evaluation` out.

The columnar path reads the files into arrays (`_native_read`, `_native_run`), scores every
question at once and finds every failing diagnosis stage (`_native_layers`). The result is the
`Evaluation` that `evaluate` gives on the same input: the numbers and stage flags come from the
arrays; the explanations (details, each finding's proving IDs and reason, label sources, the
boundary section) come from the reference functions, run on the questions' views and, for the
diagnosis, only for the stages the arrays found failing. Rows the arrays do not model (exotic
rows) and measures the columnar path does not compute are scored by the reference functions.
When the fast checks find any problem, or the input takes a form the fast reader does not
handle, the reference path runs instead (`load_dataset`, then `evaluate`): it reports every
problem with its usual message, or gives the same result.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from ..calibration import (
    CalibrationRecord,
    calibration_notes,
    merge_label_sources,
    run_label_sources,
)
from ..detectors import (
    SelfLabelling,
    affected_metrics,
    default_injection_rules,
    detect_injection,
    find_sensitive,
    merge_boundaries,
    run_boundaries,
)
from ..diagnosis import OK, QuestionDiagnosis, diagnose_view, run_diagnosis, stage_order
from ..errors import InputError
from ..evaluation import (
    Evaluation,
    LevelChoice,
    QuestionFilter,
    QuestionRecord,
    RunEvaluation,
    assemble_run,
    evaluate,
    input_problems,
    k_was_used,
    question_details,
    question_level,
    question_record,
    run_evidence_level,
)
from ..holdout import keep_questions
from ..loading import (
    EvidenceLevel,
    SnapshotIndex,
    SourceFile,
    display_path,
    file_sha256,
    load_dataset,
)
from ..metrics import Measure, PerQuestion, QuestionView, Score, build_view, measures
from ..paths import PathArg, as_optional_path, as_path, as_paths
from ..schemas import LabelPolicy, Question, QuestionResult
from ..versions import load_versions
from ._native_labels import Added, check_answered, read_labels, with_labels
from ._native_layers import Matcher, _owner, build_matcher, covered_groups, run_layers
from ._native_parts import default_workers, read_evalset_parallel, read_run_parallel
from ._native_rank import rank_scores
from ._native_read import Codes, EvalColumns, Rereader, record_at
from ._native_run import RunColumns
from ._native_snapshot import SnapshotFlags, load_snapshot, snapshot_codes
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


def _questions(path: Path, n: int) -> list[Question]:
    found = record_at(path, "evalset", "questions", set(range(n)))
    try:
        return [Question.model_validate(found[row]) for row in range(n)]
    except ValidationError as exc:  # the fast checks let it through: the reference reports it
        raise _Fallback("question model") from exc


class _Explained:
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


_CHUNK = 5_000
"""Questions whose views are held at once while a run's explanations are built."""


def _run_evaluation(
    path: Path, run: RunColumns, rows: list[int], questions: list[Question],
    views_of: tuple[SnapshotIndex, dict[int, EvidenceLevel], LabelPolicy],
    arrays: tuple[dict[str, PerQuestion], dict[str, np.ndarray], np.ndarray, _Explained],
    chosen: tuple[Measure, ...], level: str, added: Added, extras: _RunExtras,
) -> RunEvaluation:
    """One run's `RunEvaluation`: numbers and stage flags from the arrays, explanations from
    the reference functions on the rows' views (all stages for exotic rows), built `_CHUNK`
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
            except ValidationError as exc:  # the fast checks let it through: see `_questions`
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
    for start in range(0, len(rows), _CHUNK):
        part = rows[start : start + _CHUNK]
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
    )


@dataclass(frozen=True)
class _RunExtras:
    """What one run's result states besides its records (as `evaluate` states it)."""

    no_result: tuple[str, ...]
    """Selected questions without a result, in evaluation-set order."""
    self_labelled: tuple[str, ...]
    """Measures computed from labels made by the run's own generator."""
    calibrations: Sequence[CalibrationRecord]
    """The calibration records given."""


def _self_labelled(
    run: RunColumns, ids: Sequence[str], chosen: Sequence[Measure], held: np.ndarray
) -> tuple[str, ...]:
    """The measures `detectors.affected_metrics` names for the run's self-made labels, in the
    results of the questions `held` marks (the input's, see `evaluate_native`)."""
    generator = run.header.provenance.generator
    claims, facts = run.self_claim & held[run.row], run.self_fact & held[run.row]
    if generator is None or not (claims.any() or facts.any()):
        return ()
    found = SelfLabelling(
        run.header.name,
        generator.name,
        tuple(ids[row] for row in run.row[claims].tolist()),
        tuple(ids[row] for row in run.row[facts].tolist()),
    )
    return affected_metrics({m.name: m.spec.requires for m in chosen}, found)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
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


def evaluate_native(
    evalset: PathArg,
    snapshot: PathArg,
    runs: Sequence[PathArg],
    *,
    k: int | None = None,
    metrics: Sequence[str] | None = None,
    label_policy: LabelPolicy = "human-first",
    allow_unreviewed: bool = False,
    evidence_level: LevelChoice = "auto",
    question_filter: QuestionFilter | None = None,
    input_filter: QuestionFilter | None = None,
    labels: Sequence[PathArg] = (),
    accept_self_labelling: bool = False,
    allow_missing: bool = False,
    calibrations: Sequence[CalibrationRecord] = (),
    versions: PathArg | None = None,
    workers: int | None = None,
) -> Evaluation:
    """Evaluate native runs as arrays; raise `InputError` with every problem.

    The result equals `evaluate(load_dataset(evalset, snapshot=..., runs=...), ...)` with the
    same options (`Evaluation.dataset` aside). Large JSONL files are read by `workers` forked
    processes (default: one per CPU). `labels`: label files, whose labels count as the run's
    own (as `load_dataset` attaches them). `versions`: a versions file applied to the snapshot
    (`versions.load_versions`). `accept_self_labelling`, `allow_missing` and `calibrations`
    are `evaluate`'s options. `input_filter` marks the questions the input holds for the
    caller (None: all; `Request.score_with` leaves the holdout out unless included): results of
    the others are checked but are not read for self-labelling, as if absent from the files.
    `question_filter` must keep only such questions.
    """
    evalset = as_path(evalset)
    snapshot = as_path(snapshot)
    runs = as_paths(runs)
    chosen = measures(metrics)
    try:
        with _no_cycle_collection():
            return _columnar(
                evalset, snapshot, runs, k, label_policy, allow_unreviewed, evidence_level,
                workers or default_workers(), chosen, question_filter, as_paths(labels),
                accept_self_labelling=accept_self_labelling, allow_missing=allow_missing,
                calibrations=calibrations, versions=as_optional_path(versions),
                input_filter=input_filter,
            )
    except _Fallback:
        dataset = load_dataset(evalset, snapshot=snapshot, runs=runs, labels=labels)
        if versions is not None:
            dataset = load_versions(dataset, versions)
        if input_filter is not None:  # the whole input is checked, as `Request.load` does
            problems = input_problems(
                dataset, k=k, label_policy=label_policy, allow_unreviewed=allow_unreviewed,
                accept_self_labelling=accept_self_labelling, allow_missing=allow_missing,
            )
            if problems:
                raise InputError(problems) from None
            dataset = keep_questions(dataset, input_filter)
        return evaluate(
            dataset,
            k=k,
            metrics=metrics,
            label_policy=label_policy,
            allow_unreviewed=allow_unreviewed,
            evidence_level=evidence_level,
            question_filter=question_filter,
            accept_self_labelling=accept_self_labelling,
            allow_missing=allow_missing,
            calibrations=calibrations,
        )


_KNOWN_STAGES = frozenset(
    {"permission_leak", "retrieval_miss", "ranking_loss", "truncation_loss",
     "injection_followed", "stale_evidence", "unsupported_claim", "invalid_citation",
     "incomplete_answer", "missed_refusal", "false_refusal", "needless_clarification",
     "needless_escalation", "missed_clarification",
     "judge_uncertain", "injection_in_context", OK}
)


def _columnar(
    evalset: Path, snapshot_path: Path, runs: Sequence[Path], k: int | None,
    policy: LabelPolicy, allow_unreviewed: bool, level: LevelChoice, workers: int,
    chosen: tuple[Measure, ...], question_filter: QuestionFilter | None,
    label_files: Sequence[Path] = (),
    *,
    accept_self_labelling: bool = False,
    allow_missing: bool = False,
    calibrations: Sequence[CalibrationRecord] = (),
    versions: Path | None = None,
    input_filter: QuestionFilter | None = None,
) -> Evaluation:
    stages = stage_order()
    if not set(stages) <= _KNOWN_STAGES:
        raise _Fallback(f"stages {sorted(set(stages) - _KNOWN_STAGES)}")
    snapshot, snapshot_source, versions_source = load_snapshot(snapshot_path, versions)
    codes = snapshot_codes(snapshot)
    index = SnapshotIndex.build(snapshot)
    ev = read_evalset_parallel(evalset, codes, workers)
    n = len(ev.ids)
    if level == "auto":
        level_document = ev.level_document
    else:
        level_document = np.full(n, level == "document", dtype=bool)
    matcher = build_matcher(ev, codes, level_document)
    rules = default_injection_rules()
    flags = SnapshotFlags(
        codes, index, lambda text: bool(detect_injection(text, rules)), workers
    )
    chosen = tuple({m.name: m for m in chosen}.values())
    # The sensitive-content scans of answers and contexts are paid only when asked for.
    scan_answers = any(m.spec.name == "sensitive_in_answer" for m in chosen)
    scan_contexts = any(m.spec.name == "sensitive_in_context" for m in chosen)
    sensitive = (
        SnapshotFlags(codes, index, lambda text: bool(find_sensitive(text)), workers)
        if scan_contexts else None
    )
    labels, label_sources = read_labels(label_files)
    names: set[str] = set()
    answered: dict[str, list[str]] = {}
    read = []
    for path in runs:
        run, missing = read_run_parallel(
            path, ev, codes, workers, k=k, label_policy=policy,
            allow_unreviewed=allow_unreviewed, scan_answers=scan_answers,
            scan_contexts=scan_contexts, added_labels=labels, allow_missing=allow_missing,
            accept_self_labelling=accept_self_labelling,
        )
        if run.header.name in names:
            raise _Fallback("run names")
        names.add(run.header.name)
        results = run.row[: run.row.size - missing.size].tolist()
        answered[run.header.name] = [ev.ids[row] for row in results]
        scores, findings = run_layers(ev, run, codes, level_document, matcher, flags, sensitive)
        scores.update(rank_scores(ev, run, codes, level_document, matcher, chosen))
        by_row = np.empty(n, dtype=np.int64)
        by_row[run.row] = np.arange(n, dtype=np.int64)
        exotic = ev.exotic | matcher.shared | run.exotic[by_row] | (level == "span")
        explained = _Explained(ev, run, codes, level_document, matcher, flags)
        read.append((path, run, (scores, findings, exotic, explained), set(missing.tolist())))
    check_answered(labels, names, answered)
    # Every check has passed: only now are the questions read as models, once for all runs.
    questions = _questions(evalset, n)
    rows = [row for row in range(n) if question_filter is None or question_filter(questions[row])]
    held = np.array([input_filter is None or input_filter(q) for q in questions], dtype=bool)
    levels = {row: question_level(level, index, questions[row]) for row in rows}
    run_level = run_evidence_level(levels[row] for row in rows if questions[row].required_evidence)
    out = [
        _run_evaluation(
            path, run, [row for row in rows if row not in missing], questions,
            (index, levels, policy), arrays, chosen, run_level, labels.get(run.header.name, {}),
            _RunExtras(
                tuple(ev.ids[row] for row in rows if row in missing),
                _self_labelled(run, ev.ids, chosen, held),
                calibrations,
            ),
        )
        for path, run, arrays, missing in read
    ]
    sources = (
        SourceFile(display_path(evalset), "evalset", file_sha256(evalset)),
        snapshot_source,
        *(SourceFile(display_path(path), "run", file_sha256(path)) for path in runs),
        *label_sources,
        *versions_source,
    )
    return Evaluation(
        runs=tuple(out), measures=chosen, sources=sources, label_policy=policy,
        allow_unreviewed=allow_unreviewed, evalset_id=ev.evalset_id,
        snapshot_id=snapshot.snapshot_id, accept_self_labelling=accept_self_labelling,
        calibration_notes=calibration_notes([r.label_sources for r in out], chosen, calibrations),
        allow_missing=allow_missing,
    )
