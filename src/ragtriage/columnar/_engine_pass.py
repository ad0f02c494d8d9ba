"""The engine's one pass: an input's records (`EngineInputs`) into arrays, every measure and
diagnosis stage computed over them, then each run's explanations, a chunk at a time.

The evaluation set and the runs are read into arrays (`_native_read`, `_native_run`: from the
files, or from the models' JSON form), every question is scored at once and every failing
diagnosis stage found (`_native_layers`, `_native_rank`), evidence groups sharing a unit and
span-level evidence included. The numbers and stage flags come from the arrays; the
explanations (details, each finding's proving IDs and reason, label sources, the boundary
section) come from the explaining functions, run on the questions' views and, for the
diagnosis, only for the stages the arrays found failing (`_native_explain`). The inputs are
made by the entry points (`_native_eval`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._collector import no_cycle_collection
from ..calibration import CalibrationRecord, calibration_notes, measure_kinds
from ..detectors import default_injection_rules, detect_injection, sensitive_labels
from ..evaluation import Evaluation, FieldFilter, IdsCheck, LevelChoice, QuestionFilter
from ..executors import Executor, default_workers
from ..loading import SnapshotIndex, SourceFile
from ..metrics import Measure, PerQuestion
from ..schemas import LabelPolicy, Snapshot
from ._native_explain import RunExtras, run_evaluation
from ._native_found import Explained
from ._native_labels import Added, check_answered
from ._native_layers import run_layers
from ._native_parts import read_evalset_parallel, read_run_parallel
from ._native_questions import QuestionModels
from ._native_rank import rank_scores
from ._native_read import EvalColumns, canary_places
from ._native_records import FileRecords, Records
from ._native_run import RunColumns
from ._native_select import ReadRun, rows_with_stages
from ._native_snapshot import SnapshotScan, scan_together, snapshot_codes
from ._native_stages import RunStages, build_matcher, find_stages
from ._trec import _Fallback


@dataclass(frozen=True)
class EngineInputs:
    """What the engine reads: the records of the evaluation set and of each run, the
    snapshot, the labels of label files by run, and the sources the result names."""

    evalset: Records
    snapshot: Snapshot
    runs: tuple[Records, ...]
    labels: dict[str, Added]
    sources: Callable[[], tuple[SourceFile, ...]]
    """The inputs' sources (files hashed when the result is made)."""
    default_k: int | None = None
    """The cut-off the format implies, if any (the article format's)."""


def _self_labelled(run: RunColumns, chosen: Sequence[Measure], held: np.ndarray) -> tuple[str, ...]:
    """The measures that read a kind of labels (`calibration.measure_kinds`) the run's
    generator made itself, in the results of the questions `held` marks (the input's, see
    `evaluate_native`)."""
    if run.header.provenance.generator is None:
        return ()
    made = {
        kind for kind, self_made in (("claim", run.self_claim), ("fact", run.self_fact))
        if (self_made & held[run.row]).any()
    }
    return tuple(m.name for m in chosen if made.intersection(measure_kinds(m)))


@dataclass(frozen=True)
class EngineOptions:
    """How the engine scores an input: `columnar.evaluate`'s options (each documented there),
    and what only the file reader is given."""

    k: int | None = None
    label_policy: LabelPolicy = "human-first"
    allow_unreviewed: bool = False
    evidence_level: LevelChoice = "auto"
    question_filter: QuestionFilter | None = None
    accept_self_labelling: bool = False
    allow_missing: bool = False
    calibrations: Sequence[CalibrationRecord] = ()
    workers: int | None = None
    input_filter: QuestionFilter | None = None
    """The questions the input holds for the caller (None: all; see `evaluate_native`)."""
    ids_check: IdsCheck | None = None
    """Given the evaluation set's question IDs once they are read, before any run is."""
    executor: Executor | None = None
    """Where the byte ranges of JSONL files are read (None: forked workers of this machine)."""
    stages: tuple[str, ...] = ()
    """Keep, of the questions `question_filter` keeps, only those diagnosed with any of these
    stages (primary or secondary) in at least one run (empty: no stage condition)."""


class _Fields(NamedTuple):
    """A question's ID, tags and split, as the reader read them (for a `FieldFilter`)."""

    id: str
    tags: Sequence[str]
    split: str


def _filtered(
    question_filter: QuestionFilter | None, input_filter: QuestionFilter | None,
    questions: QuestionModels, fields: tuple[list[str], list[tuple[str, ...]], list[str]],
) -> tuple[list[int], np.ndarray]:
    """The rows `question_filter` keeps, in order, and whether `input_filter` holds each row
    (None: every question). `FieldFilter`s are given each question's ID, tags and split as
    read (`fields`: those columns), one filter over every row, then the other; any other
    filter its model, read a chunk at a time."""
    held = np.ones(len(questions.ids), dtype=bool)
    if question_filter is None and input_filter is None:
        return list(range(held.size)), held
    if isinstance(question_filter, FieldFilter | None) and isinstance(
        input_filter, FieldFilter | None
    ):
        read = list(map(_Fields, *fields))
        if input_filter is not None:
            held = np.fromiter(map(bool, map(input_filter.keep, read)), bool, len(read))
        if question_filter is None:
            return list(range(len(read))), held
        kept = np.fromiter(map(bool, map(question_filter.keep, read)), bool, len(read))
        return np.flatnonzero(kept).tolist(), held
    rows = []
    for models in questions.chunks():
        for row, question in models.items():
            if question_filter is None or question_filter(question):
                rows.append(row)
            if input_filter is not None:
                held[row] = input_filter(question)
    return rows, held


def _layers(
    ev: EvalColumns, run: RunColumns, stages: RunStages, chosen: tuple[Measure, ...],
    sensitive: Callable[[np.ndarray], np.ndarray] | None,
) -> tuple[dict[str, PerQuestion], dict[str, np.ndarray]]:
    """A run's measures, the rank measures among `chosen` included, and its stage findings
    (`run_layers`, `rank_scores`)."""
    scores, findings = run_layers(ev, run, stages, sensitive)
    scores.update(rank_scores(ev, run, stages.matched, chosen))
    return scores, findings


@no_cycle_collection()  # millions of acyclic objects: the collector would only scan them
def run_engine(
    inputs: EngineInputs, chosen: tuple[Measure, ...], options: EngineOptions
) -> Evaluation:
    """Score `inputs`; `_Fallback` for records the fast checks refuse."""
    policy, level, snapshot = options.label_policy, options.evidence_level, inputs.snapshot
    question_filter, input_filter = options.question_filter, options.input_filter
    workers = options.workers or default_workers()
    codes = snapshot_codes(snapshot)
    index = SnapshotIndex.build(snapshot)
    ev = read_evalset_parallel(inputs.evalset, codes, workers, options.executor)
    canaries = canary_places(ev, index)
    if not ev.ids and isinstance(inputs.evalset, FileRecords):  # the loader names it
        raise _Fallback("a file without questions")
    if options.ids_check is not None:
        options.ids_check(ev.ids)
    n = len(ev.ids)
    if level == "auto":
        level_document = ev.level_document
    else:  # span level matches items of the required documents, then compares spans
        level_document = np.full(n, level != "chunk", dtype=bool)
    matcher = build_matcher(ev, codes, level_document, spans=level == "span")
    rules = default_injection_rules()
    flags = SnapshotScan(codes, index, lambda text: bool(detect_injection(text, rules)), workers)
    chosen = tuple({m.name: m for m in chosen}.values())
    # The sensitive measures' columns are made only when asked for. The texts are scanned for
    # the details in any case: answers and recorded context texts by the reader, the snapshot
    # texts a context shows by `sensitive`, once for every run and for the measure.
    scan_answers = any(m.spec.name == "sensitive_in_answer" for m in chosen)
    scan_contexts = any(m.spec.name == "sensitive_in_context" for m in chosen)
    sensitive = SnapshotScan(codes, index, sensitive_labels, workers)
    labels = inputs.labels
    names: set[str] = set()
    answered: dict[str, list[str]] = {}
    read: list[ReadRun] = []
    for source in inputs.runs:
        run, missing = read_run_parallel(
            source, ev, codes, workers, k=options.k, label_policy=policy,
            allow_unreviewed=options.allow_unreviewed, scan_answers=scan_answers,
            scan_contexts=scan_contexts, added_labels=labels, allow_missing=options.allow_missing,
            accept_self_labelling=options.accept_self_labelling, executor=options.executor,
            index=index, default_k=inputs.default_k,
        )
        if run.header.name in names:
            raise _Fallback("run names")
        names.add(run.header.name)
        results = run.row[: run.row.size - missing.size].tolist()
        answered[run.header.name] = [ev.ids[row] for row in results]
        # The snapshot texts the contexts show, scanned for both detectors in one pass here
        # (forked workers may share it), before the layers' thread starts: what follows
        # only looks the findings up, and no process is forked while two threads run.
        scan_together(run.context[0][run.context_flag < 0], [flags, sensitive])
        stages = find_stages(ev, run, matcher, codes, flags, canaries)
        # Two threads: numpy lets go of the interpreter lock for much of both (at 1,000,000
        # questions the two took 2.2 s together, 1.1 s and 1.9 s in turn).
        with ThreadPoolExecutor(1) as beside:
            layers = beside.submit(
                _layers, ev, run, stages, chosen, sensitive if scan_contexts else None
            )
            explained = Explained(ev, run, codes, stages, level, sensitive.found)
            scores, findings = layers.result()
        del stages, layers
        read.append((source, run, (scores, findings, explained), set(missing.tolist())))
    check_answered(labels, names, answered)
    ids, evalset_id, tags, splits = ev.ids, ev.evalset_id, ev.tags, ev.split
    evalset_snapshot_id = ev.recorded_snapshot_id
    # The explanations need none of these (at a million questions, several hundred MB).
    del ev, matcher, flags, sensitive, answered
    # Every check has passed: the questions are read as models only where they are used,
    # a chunk at a time: here for a filter other than a `FieldFilter` (the request's are
    # field filters), else by the explanations that need a view.
    questions = QuestionModels(inputs.evalset, ids)
    rows, held = _filtered(question_filter, input_filter, questions, (ids, tags, splits))
    if options.stages:  # decided here, before any explanation is built
        rows = rows_with_stages(rows, read, options.stages, questions, index, labels)
    out = [
        run_evaluation(
            source, run, [row for row in rows if row not in missing], questions,
            index, arrays, chosen, labels.get(run.header.name, {}),
            RunExtras(
                tuple(row for row in rows if row in missing), _self_labelled(run, chosen, held),
                options.calibrations,
            ),
            workers,
        )
        for source, run, arrays, missing in read
    ]
    return Evaluation(
        runs=tuple(out), measures=chosen, sources=inputs.sources(), label_policy=policy,
        allow_unreviewed=options.allow_unreviewed, evalset_id=evalset_id,
        snapshot_id=snapshot.snapshot_id, evalset_snapshot_id=evalset_snapshot_id,
        accept_self_labelling=options.accept_self_labelling,
        calibration_notes=calibration_notes(
            [r.label_sources for r in out], chosen, options.calibrations
        ),
        allow_missing=options.allow_missing, questions=questions.of(rows),
    )
