"""`evaluate_native`: a native evaluation set and runs, file in -> the `Evaluation` out.

The columnar path reads the files into arrays (`_native_read`, `_native_run`), scores every
question at once and finds every failing diagnosis stage (`_native_layers`). The result is the
`Evaluation` that `evaluate` gives on the same input: the numbers and stage flags come from the
arrays; the explanations (details, each finding's proving IDs and reason, label sources, the
boundary section) come from the reference functions, run on the questions' views and, for the
diagnosis, only for the stages the arrays found failing (`_native_explain`, a chunk of
questions at a time). The arrays score every row (evidence groups sharing a unit and span-level
evidence included); measures the columnar path does not compute are scored by the reference
functions.
When the fast checks find any problem, or the input takes a form the fast reader does not
handle, the reference path runs instead (`load_dataset`, then `evaluate`): it reports every
problem with its usual message, or gives the same result.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..calibration import (
    CalibrationRecord,
    calibration_notes,
)
from ..detectors import (
    SelfLabelling,
    affected_metrics,
    default_injection_rules,
    detect_injection,
    find_sensitive,
)
from ..diagnosis import OK, stage_order
from ..evaluation import (
    Evaluation,
    LevelChoice,
    QuestionFilter,
    load_and_evaluate,
    question_level,
    run_evidence_level,
)
from ..executors import Executor
from ..loading import (
    EvidenceLevel,
    SnapshotIndex,
    SourceFile,
    display_path,
    file_sha256,
)
from ..metrics import Measure, measures
from ..paths import PathArg, as_optional_path, as_path, as_paths
from ..schemas import LabelPolicy
from ..validation import parse_k
from ._native_explain import (
    Explained,
    RunExtras,
    no_cycle_collection,
    run_evaluation,
)
from ._native_labels import check_answered, read_labels
from ._native_layers import build_matcher, run_layers
from ._native_parts import default_workers, read_evalset_parallel, read_run_parallel
from ._native_questions import QuestionModels
from ._native_rank import rank_scores
from ._native_run import RunColumns
from ._native_snapshot import SnapshotFlags, load_snapshot, snapshot_codes
from ._trec import _Fallback


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
    executor: Executor | None = None,
) -> Evaluation:
    """Evaluate native runs as arrays; raise `InputError` with every problem.

    The result equals `evaluation.load_and_evaluate(evalset, snapshot=..., runs=..., ...)` with
    the same options (which it falls back to for input its fast checks refuse). Large JSONL
    files are read by `workers` forked processes (default: one per CPU), and a large run's
    explanations are shared with them.
    `labels`: label files, whose labels count as the run's own (as `load_dataset` attaches
    them). `versions`: a versions file applied to the snapshot
    (`versions.load_versions`). `accept_self_labelling`, `allow_missing` and `calibrations`
    are `evaluate`'s options. `input_filter` marks the questions the input holds for the
    caller (None: all; `Request.score_with` leaves the holdout out unless included): results of
    the others are checked but are not read for self-labelling, as if absent from the files.
    `question_filter` must keep only such questions. `executor`: where the byte ranges of
    JSONL files are read (`executors.RayExecutor`); None: forked workers of this machine.
    """
    evalset = as_path(evalset)
    snapshot = as_path(snapshot)
    runs = as_paths(runs)
    chosen = measures(metrics)
    if k is not None:  # 0, negatives, fractions and values past the largest cut-off: refused
        k = parse_k(k)
    try:
        with no_cycle_collection():
            return _columnar(
                evalset, snapshot, runs, k, label_policy, allow_unreviewed, evidence_level,
                workers or default_workers(), chosen, question_filter, as_paths(labels),
                accept_self_labelling=accept_self_labelling, allow_missing=allow_missing,
                calibrations=calibrations, versions=as_optional_path(versions),
                input_filter=input_filter, executor=executor,
            )
    except _Fallback:
        return load_and_evaluate(
            evalset,
            snapshot=snapshot,
            runs=runs,
            labels=labels,
            versions=versions,
            input_filter=input_filter,
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
    executor: Executor | None = None,
) -> Evaluation:
    stages = stage_order()
    if not set(stages) <= _KNOWN_STAGES:
        raise _Fallback(f"stages {sorted(set(stages) - _KNOWN_STAGES)}")
    snapshot, snapshot_source, versions_source = load_snapshot(snapshot_path, versions)
    codes = snapshot_codes(snapshot)
    index = SnapshotIndex.build(snapshot)
    ev = read_evalset_parallel(evalset, codes, workers, executor)
    n = len(ev.ids)
    if level == "auto":
        level_document = ev.level_document
    else:  # span level matches items of the required documents, then compares spans
        level_document = np.full(n, level != "chunk", dtype=bool)
    matcher = build_matcher(ev, codes, level_document, spans=level == "span")
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
            accept_self_labelling=accept_self_labelling, executor=executor, index=index,
        )
        if run.header.name in names:
            raise _Fallback("run names")
        names.add(run.header.name)
        results = run.row[: run.row.size - missing.size].tolist()
        answered[run.header.name] = [ev.ids[row] for row in results]
        scores, findings = run_layers(ev, run, codes, matcher, flags, sensitive)
        scores.update(rank_scores(ev, run, matcher, chosen))
        explained = Explained(ev, run, codes, matcher, flags, index)
        read.append((path, run, (scores, findings, explained), set(missing.tolist())))
    check_answered(labels, names, answered)
    # Every check has passed: only now are the questions read as models, a chunk at a time.
    questions = QuestionModels(evalset, ev.ids)
    rows: list[int] = []
    held = np.ones(n, dtype=bool)
    levels: dict[int, EvidenceLevel] = {}
    required: list[EvidenceLevel] = []
    for models in questions.chunks():
        for row, question in models.items():
            if question_filter is None or question_filter(question):
                rows.append(row)
                levels[row] = question_level(level, index, question)
                if question.required_evidence:
                    required.append(levels[row])
            held[row] = input_filter is None or input_filter(question)
    run_level = run_evidence_level(required)
    out = [
        run_evaluation(
            path, run, [row for row in rows if row not in missing], questions,
            (index, levels, policy), arrays, chosen, run_level, labels.get(run.header.name, {}),
            RunExtras(
                tuple(ev.ids[row] for row in rows if row in missing),
                _self_labelled(run, ev.ids, chosen, held),
                calibrations,
            ),
            workers,
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
        allow_missing=allow_missing, questions=questions.of(rows),
    )
