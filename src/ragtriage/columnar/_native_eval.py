"""The engine: native files or a `Dataset` in memory in, the `Evaluation` out.

The evaluation set and the runs are read into arrays (`_native_read`, `_native_run`: from the
files, or from the models' JSON form), every question is scored at once and every failing
diagnosis stage found (`_native_layers`, `_native_rank`), evidence groups sharing a unit and
span-level evidence included. The numbers and stage flags come from the arrays; the
explanations (details, each finding's proving IDs and reason, label sources, the boundary
section) come from the explaining functions, run on the questions' views and, for the
diagnosis, only for the stages the arrays found failing (`_native_explain`, a chunk of
questions at a time). Files the fast checks refuse, and the article format, are read by the
loader (`load_dataset`), which names every problem; a valid `Dataset` is then scored by the
same engine (`evaluate`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    find_self_labelling,
    find_sensitive,
    self_labelling_problems,
)
from ..errors import InputError, Problem
from ..evaluation import (
    Evaluation,
    LevelChoice,
    QuestionFilter,
    question_level,
    run_evidence_level,
)
from ..executors import Executor
from ..holdout import keep_questions
from ..loading import (
    Dataset,
    EvidenceLevel,
    SnapshotIndex,
    SourceFile,
    display_path,
    file_sha256,
    load_dataset,
)
from ..metrics import Measure, measures
from ..paths import PathArg, as_optional_path, as_path, as_paths
from ..schemas import LabelPolicy, Snapshot
from ..validation import check_dataset, parse_k
from ..versions import load_versions
from ._native_explain import (
    Explained,
    RunExtras,
    no_cycle_collection,
    run_evaluation,
)
from ._native_labels import Added, check_answered, read_labels
from ._native_layers import build_matcher, run_layers
from ._native_parts import default_workers, read_evalset_parallel, read_run_parallel
from ._native_questions import QuestionModels
from ._native_rank import rank_scores
from ._native_read import FileRecords, ModelRecords, Records
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

    The result equals `load_and_evaluate(evalset, snapshot=..., runs=..., ...)` with the same
    options (which it falls back to for input its fast checks refuse: the loader names every
    problem). Large JSONL files are read by `workers` forked processes (default: one per
    CPU), and a large run's explanations are shared with them.
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
        return _on_files(
            evalset, snapshot, runs, chosen, labels=as_paths(labels),
            versions=as_optional_path(versions), k=k, label_policy=label_policy,
            allow_unreviewed=allow_unreviewed, evidence_level=evidence_level,
            question_filter=question_filter, accept_self_labelling=accept_self_labelling,
            allow_missing=allow_missing, calibrations=calibrations, workers=workers,
            input_filter=input_filter, executor=executor,
        )
    except _Fallback:
        return load_and_evaluate(
            evalset, snapshot=snapshot, runs=runs, labels=labels, versions=versions,
            input_filter=input_filter, metrics=metrics, k=k, label_policy=label_policy,
            allow_unreviewed=allow_unreviewed, evidence_level=evidence_level,
            question_filter=question_filter, accept_self_labelling=accept_self_labelling,
            allow_missing=allow_missing, calibrations=calibrations, workers=workers,
        )


def input_problems(
    dataset: Dataset,
    *,
    k: int | None = None,
    label_policy: LabelPolicy = "human-first",
    allow_unreviewed: bool = False,
    accept_self_labelling: bool = False,
    allow_missing: bool = False,
) -> list[Problem]:
    """Every problem `evaluate` refuses the whole dataset for (the same options), in its order.

    The holdout policy asks this of the whole input before it leaves the holdout out, so a
    bad holdout result is reported as any other (see `load_and_evaluate`).
    """
    problems = check_dataset(
        dataset,
        dataset.cutoffs(k),
        allow_unreviewed=allow_unreviewed,
        label_policy=label_policy,
        allow_missing=allow_missing,
    )
    if accept_self_labelling:
        return problems
    files = {run.name: dataset.run_file(run.name) for run in dataset.runs}
    return [*problems, *self_labelling_problems(find_self_labelling(dataset.runs), files)]


def evaluate(
    dataset: Dataset,
    *,
    k: int | None = None,
    metrics: Sequence[str] | None = None,
    label_policy: LabelPolicy = "human-first",
    allow_unreviewed: bool = False,
    evidence_level: LevelChoice = "auto",
    question_filter: QuestionFilter | None = None,
    accept_self_labelling: bool = False,
    calibrations: Sequence[CalibrationRecord] = (),
    allow_missing: bool = False,
    workers: int | None = None,
) -> Evaluation:
    """Validate and score every run of a dataset held in memory; raise `InputError` listing
    every problem.

    A measure whose counted labels include judge labels is calibrated when `calibrations`
    holds a record for every such judge (same model and prompt version); see `label_sources`.

    A judge label made by the run's own generator (same name) is refused unless
    `accept_self_labelling`; then the affected measures are listed per run (`self_labelled`).

    A run without a result for some questions is refused unless `allow_missing`; then those
    questions are listed per run (`no_result`) and left out of its records and aggregates.
    `workers`: forked processes sharing a large run's explanations (default: one per CPU).
    """
    chosen = measures(metrics)
    if k is not None:  # 0, negatives, fractions and values past the largest cut-off: refused
        k = parse_k(k)
    problems = input_problems(
        dataset, k=k, label_policy=label_policy, allow_unreviewed=allow_unreviewed,
        accept_self_labelling=accept_self_labelling, allow_missing=allow_missing,
    )
    if problems:
        raise InputError(problems)
    evalset = dataset.evalset
    inputs = _Inputs(
        ModelRecords(
            evalset.model_dump(mode="json", exclude={"questions"}), evalset.questions,
            dataset.sources[0].path,
        ),
        dataset.snapshot,
        tuple(
            ModelRecords(
                run.model_dump(mode="json", exclude={"results"}), run.results,
                dataset.run_file(run.name),
            )
            for run in dataset.runs
        ),
        {},
        lambda: dataset.sources,
        dataset.default_k,
    )
    try:
        with no_cycle_collection():
            return _columnar(
                inputs, chosen, k=k, label_policy=label_policy, allow_unreviewed=allow_unreviewed,
                evidence_level=evidence_level, question_filter=question_filter,
                accept_self_labelling=accept_self_labelling, allow_missing=allow_missing,
                calibrations=calibrations, workers=workers,
            )
    except _Fallback as exc:  # the checks above passed: the engine must take the input
        raise RuntimeError(
            f"ragtriage could not score a dataset its checks accept ({exc}); please report it"
        ) from exc


def load_and_evaluate(
    dataset: PathArg,
    *,
    snapshot: PathArg | None = None,
    runs: Sequence[PathArg] = (),
    labels: Sequence[PathArg] = (),
    versions: PathArg | None = None,
    input_filter: QuestionFilter | None = None,
    **options: Any,
) -> Evaluation:
    """Load files with the loader (a native set or an article-format file; a versions file
    applied to the snapshot) and `evaluate` them (same options).

    `input_filter` marks the questions the input holds for the caller (None: all): the whole
    input is checked first (`InputError` with every problem, the others' results included),
    then the others are left out, as if absent from the files. No request policy: nothing is
    said or recorded about a holdout; `ragtriage.evaluate_files` is the call that does what
    `ragtriage evaluate` does.
    """
    loaded = load_dataset(dataset, snapshot=snapshot, runs=runs, labels=labels)
    if versions is not None:
        loaded = load_versions(loaded, versions)
    if input_filter is not None:
        checks = ("k", "label_policy", "allow_unreviewed", "accept_self_labelling",
                  "allow_missing")
        k = options.get("k")
        given = {n: options[n] for n in checks if n in options}
        if k is not None:
            given["k"] = parse_k(k)
        problems = input_problems(loaded, **given)
        if problems:
            raise InputError(problems)
        loaded = keep_questions(loaded, input_filter)
    return evaluate(loaded, **options)


@dataclass(frozen=True)
class _Inputs:
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


def _on_files(
    evalset: Path, snapshot: Path, runs: Sequence[Path], chosen: tuple[Measure, ...], *,
    labels: Sequence[Path] = (), versions: Path | None = None, **options: Any,
) -> Evaluation:
    """The engine on native files (`_columnar`'s options), without the loader: `_Fallback`
    for input the fast checks refuse or a form the fast reader does not read."""
    inputs = _file_inputs(evalset, snapshot, runs, labels, versions)
    with no_cycle_collection():
        return _columnar(inputs, chosen, **options)


def _file_inputs(
    evalset: Path, snapshot_path: Path, runs: Sequence[Path], label_files: Sequence[Path],
    versions: Path | None,
) -> _Inputs:
    snapshot, snapshot_source, versions_source = load_snapshot(snapshot_path, versions)
    labels, label_sources = read_labels(label_files)

    def sources() -> tuple[SourceFile, ...]:
        return (
            SourceFile(display_path(evalset), "evalset", file_sha256(evalset)),
            snapshot_source,
            *(SourceFile(display_path(path), "run", file_sha256(path)) for path in runs),
            *label_sources,
            *versions_source,
        )

    return _Inputs(
        FileRecords(evalset, "evalset", "questions"),
        snapshot,
        tuple(FileRecords(path, "run", "results") for path in runs),
        labels,
        sources,
    )


def _columnar(
    inputs: _Inputs,
    chosen: tuple[Measure, ...],
    *,
    k: int | None = None,
    label_policy: LabelPolicy = "human-first",
    allow_unreviewed: bool = False,
    evidence_level: LevelChoice = "auto",
    question_filter: QuestionFilter | None = None,
    accept_self_labelling: bool = False,
    allow_missing: bool = False,
    calibrations: Sequence[CalibrationRecord] = (),
    workers: int | None = None,
    input_filter: QuestionFilter | None = None,
    executor: Executor | None = None,
) -> Evaluation:
    policy, level, snapshot = label_policy, evidence_level, inputs.snapshot
    workers = workers or default_workers()
    codes = snapshot_codes(snapshot)
    index = SnapshotIndex.build(snapshot)
    ev = read_evalset_parallel(inputs.evalset, codes, workers, executor)
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
    labels = inputs.labels
    names: set[str] = set()
    answered: dict[str, list[str]] = {}
    read = []
    for source in inputs.runs:
        run, missing = read_run_parallel(
            source, ev, codes, workers, k=k, label_policy=policy,
            allow_unreviewed=allow_unreviewed, scan_answers=scan_answers,
            scan_contexts=scan_contexts, added_labels=labels, allow_missing=allow_missing,
            accept_self_labelling=accept_self_labelling, executor=executor, index=index,
            default_k=inputs.default_k,
        )
        if run.header.name in names:
            raise _Fallback("run names")
        names.add(run.header.name)
        results = run.row[: run.row.size - missing.size].tolist()
        answered[run.header.name] = [ev.ids[row] for row in results]
        scores, findings = run_layers(ev, run, codes, matcher, flags, sensitive)
        scores.update(rank_scores(ev, run, matcher, chosen))
        explained = Explained(ev, run, codes, matcher, flags, index)
        read.append((source, run, (scores, findings, explained), set(missing.tolist())))
    check_answered(labels, names, answered)
    # Every check has passed: only now are the questions read as models, a chunk at a time.
    questions = QuestionModels(inputs.evalset, ev.ids)
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
            source, run, [row for row in rows if row not in missing], questions,
            (index, levels, policy), arrays, chosen, run_level, labels.get(run.header.name, {}),
            RunExtras(
                tuple(ev.ids[row] for row in rows if row in missing),
                _self_labelled(run, ev.ids, chosen, held),
                calibrations,
            ),
            workers,
        )
        for source, run, arrays, missing in read
    ]
    return Evaluation(
        runs=tuple(out), measures=chosen, sources=inputs.sources(), label_policy=policy,
        allow_unreviewed=allow_unreviewed, evalset_id=ev.evalset_id,
        snapshot_id=snapshot.snapshot_id, accept_self_labelling=accept_self_labelling,
        calibration_notes=calibration_notes([r.label_sources for r in out], chosen, calibrations),
        allow_missing=allow_missing, questions=questions.of(rows),
    )
