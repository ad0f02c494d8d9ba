"""The engine's entry points: native files (`evaluate_native`), a `Dataset` in memory
(`evaluate`), any files through the loader (`load_and_evaluate`), each made into the one
pass's inputs (`_engine_pass`).

Files the fast checks refuse, and the article format, are read by the loader
(`load_dataset`), which names every problem; a valid `Dataset` is then scored by the same
engine (`evaluate`).
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._collector import no_cycle_collection
from ..calibration import CalibrationRecord
from ..detectors import find_self_labelling, self_labelling_problems
from ..diagnosis import stage_names
from ..errors import (
    InputError,
    Problem,
    ProblemCollector,
    RequestError,
    problems_of,
    range_problems,
)
from ..evaluation import Evaluation, IdsCheck, LevelChoice, QuestionFilter, option_problems
from ..executors import Executor
from ..holdout import keep_questions
from ..loading import (
    Dataset,
    SourceFile,
    display_path,
    file_sha256_later,
    load_dataset,
    no_run_problems,
    reused_run_names,
)
from ..metrics import Measure, measures
from ..paths import PathArg, as_optional_path, as_path, as_paths
from ..schemas import LabelPolicy
from ..validation import WORKERS_RANGE, check_dataset, parse_k
from ..versions import read_versions, versioned
from ._engine_pass import EngineInputs, EngineOptions, run_engine
from ._native_labels import read_labels
from ._native_records import FileRecords, ModelRecords
from ._native_snapshot import load_snapshot
from ._trec import _Fallback


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
    stages: Sequence[str] = (),
    input_filter: QuestionFilter | None = None,
    ids_check: IdsCheck | None = None,
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
    problem). Large JSONL files are read by `workers` forked processes (default: one per CPU),
    and a large run's explanations are shared with them. `labels`: label files, whose labels
    count as the run's own (as `load_dataset` attaches them). `versions`: a versions file
    applied to the snapshot (`versions.load_versions`). `accept_self_labelling`, `allow_missing`
    and `calibrations` are `evaluate`'s options. `input_filter` marks the questions the input
    holds for the caller (None: all; `Request.score_with` leaves the holdout out unless
    included): results of the others are checked but are not read for self-labelling, as if
    absent from the files. `question_filter` must keep only such questions; `stages` keeps of
    those only the ones diagnosed with any of these stages (see `evaluate`). `ids_check` is
    given every question ID of the evaluation set as soon as they are read, before any run is
    read or scored (what it raises ends the call). `executor`: where the byte ranges of JSONL
    files are read (`executors.RayExecutor`); None: forked workers of this machine.
    """
    evalset, snapshot, runs = as_path(evalset), as_path(snapshot), as_paths(runs)
    chosen, k, chosen_stages = _options(
        metrics, k, label_policy, evidence_level, stages, workers
    )
    try:
        return _on_files(
            evalset, snapshot, runs, chosen, labels=as_paths(labels),
            versions=as_optional_path(versions), k=k, label_policy=label_policy,
            allow_unreviewed=allow_unreviewed, evidence_level=evidence_level,
            question_filter=question_filter, accept_self_labelling=accept_self_labelling,
            allow_missing=allow_missing, calibrations=calibrations, workers=workers,
            input_filter=input_filter, executor=executor, stages=chosen_stages,
            ids_check=ids_check,
        )
    except _Fallback:
        return load_and_evaluate(
            evalset, snapshot=snapshot, runs=runs, labels=labels, versions=versions,
            input_filter=input_filter, ids_check=ids_check, metrics=metrics, k=k,
            label_policy=label_policy, allow_unreviewed=allow_unreviewed,
            evidence_level=evidence_level, question_filter=question_filter,
            accept_self_labelling=accept_self_labelling, allow_missing=allow_missing,
            calibrations=calibrations, workers=workers, stages=stages,
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
    named = reused_run_names([(dataset.run_file(run.name), run.name) for run in dataset.runs])
    if named:  # the checks below, and the results, know a run by its name
        return named
    problems = check_dataset(
        dataset, dataset.cutoffs(k), allow_unreviewed=allow_unreviewed, label_policy=label_policy,
        allow_missing=allow_missing,
    )
    if accept_self_labelling:
        return problems
    found = find_self_labelling(dataset.runs)
    return [*problems, *self_labelling_problems(found, dataset.label_file)]


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
    stages: Sequence[str] = (),
) -> Evaluation:
    """Validate and score every run of a dataset held in memory; raise `InputError` listing
    every problem.

    A measure whose counted labels include judge labels is calibrated when `calibrations`
    holds a record for every such judge (same model and prompt version); see `label_sources`.

    A judge label made by the run's own generator (same name) is refused unless
    `accept_self_labelling`; then the affected measures are listed per run (`self_labelled`).

    A run without a result for some questions is refused unless `allow_missing`; then those
    questions are listed per run (`no_result`) and left out of its records and aggregates.
    `workers`: forked processes sharing a large run's explanations (default: one per CPU;
    `validation.WORKERS_RANGE`). A dataset without runs is refused, as `evaluate_files`
    refuses files without one.

    `stages` keeps, of the questions `question_filter` keeps, only those diagnosed with any
    of these stages (primary or secondary) in at least one run: aggregates, slices, the
    diagnosis and the boundary section then cover exactly those questions.
    """
    if not isinstance(dataset, Dataset):
        raise RequestError(
            "dataset: expected a Dataset (ragtriage.load_dataset reads one from files; "
            f"ragtriage.evaluate_files scores files); found {type(dataset).__name__} "
            f"{reprlib.repr(dataset)}"
        )
    chosen, k, stages = _options(metrics, k, label_policy, evidence_level, stages, workers)
    if problems := [
        *input_problems(
            dataset, k=k, label_policy=label_policy, allow_unreviewed=allow_unreviewed,
            accept_self_labelling=accept_self_labelling, allow_missing=allow_missing,
        ),
        *no_run_problems(len(dataset.runs), "evaluate"),
    ]:
        raise InputError(problems)
    return _score(dataset, chosen, EngineOptions(
        k=k, label_policy=label_policy, allow_unreviewed=allow_unreviewed,
        evidence_level=evidence_level, question_filter=question_filter,
        accept_self_labelling=accept_self_labelling, allow_missing=allow_missing,
        calibrations=calibrations, workers=workers, stages=stages,
    ))


def _score(dataset: Dataset, chosen: tuple[Measure, ...], options: EngineOptions) -> Evaluation:
    """A dataset the checks accept, scored by the engine (no run: an evaluation of none)."""
    evalset = dataset.evalset
    questions = ModelRecords(
        evalset.model_dump(mode="json", exclude={"questions"}), evalset.questions,
        dataset.sources[0].path,
    )
    runs = tuple(
        ModelRecords(
            run.model_dump(mode="json", exclude={"results"}), run.results,
            dataset.run_file(run.name),
        )
        for run in dataset.runs
    )
    inputs = EngineInputs(
        questions, dataset.snapshot, runs, {}, lambda: dataset.sources, dataset.default_k
    )
    try:
        return run_engine(inputs, chosen, options)
    except _Fallback as exc:  # the checks passed: the engine must take the input
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
    ids_check: IdsCheck | None = None,
    **options: Any,
) -> Evaluation:
    """Load files with the loader (a native set or an article-format file; a versions file
    applied to the snapshot) and `evaluate` them (same options; without a run, an evaluation
    of none, which each command refuses in its own words).

    `input_filter` marks the questions the input holds for the caller (None: all): the whole
    input is checked first (`InputError` with every problem, the others' results included),
    then the others are left out, as if absent from the files. No request policy: nothing is
    said or recorded about a holdout; `ragtriage.evaluate_files` is the call that does what
    `ragtriage evaluate` does. `ids_check` is given every question ID of the evaluation set
    once the files are loaded, before anything is scored.
    """
    chosen, k, stages = _options(
        options.pop("metrics", None), options.pop("k", None),
        options.get("label_policy", "human-first"), options.get("evidence_level", "auto"),
        options.pop("stages", ()), options.get("workers"),
    )
    checks = ("label_policy", "allow_unreviewed", "accept_self_labelling", "allow_missing")
    given = {"k": k, **{n: options[n] for n in checks if n in options}}

    def check(loaded: Dataset) -> list[Problem]:
        refused, loaded = _versioned(loaded, versions)
        return [*refused, *input_problems(loaded, **given)]

    try:
        loaded = load_dataset(dataset, snapshot=snapshot, runs=runs, labels=labels, check=check)
    except InputError as exc:  # stopped at the first step: the versions file's own problems too
        if versions is None:
            raise
        own = ProblemCollector()
        read_versions(versions, own)
        new = [p for p in own.problems if p not in exc.problems]
        raise InputError([*exc.problems, *new]) from exc
    if ids_check is not None:
        ids_check([question.id for question in loaded.evalset.questions])
    refused, loaded = _versioned(loaded, versions)
    if refused:
        raise InputError([*refused, *input_problems(loaded, **given)])
    if input_filter is not None:
        if problems := input_problems(loaded, **given):
            raise InputError(problems)
        loaded = keep_questions(loaded, input_filter)
    if problems := input_problems(loaded, **given):
        raise InputError(problems)
    return _score(loaded, chosen, EngineOptions(k=k, stages=stages, **options))


def _versioned(loaded: Dataset, versions: PathArg | None) -> tuple[list[Problem], Dataset]:
    """The dataset with the versions file applied; else, with that file's problems, as
    `versions.versioned` leaves it (its own problems are found without the file)."""
    if versions is None:
        return [], loaded
    problems, applied = versioned(loaded, versions)
    return list(problems), applied


def _options(
    metrics: Sequence[str] | None, k: int | None, label_policy: object, evidence_level: object,
    stages: Sequence[str], workers: object = None,
) -> tuple[tuple[Measure, ...], int | None, tuple[str, ...]]:
    """The measures, the cut-off and the stages chosen; else `InputError` with every problem
    of these options, in the request's order (`Request.option_problems`), before anything is
    read. 0, negative, fractional k and k past the largest cut-off are refused."""
    if problems := [
        *problems_of(measures, metrics),
        *problems_of(stage_names, stages),
        *(() if k is None else problems_of(parse_k, k)),
        *option_problems(label_policy, evidence_level),
        *range_problems(("workers", workers, WORKERS_RANGE)),
    ]:
        raise InputError(problems)
    return measures(metrics), None if k is None else parse_k(k), stage_names(stages)


@no_cycle_collection()  # from the snapshot's models on (at 100,000 documents: 0.35 s of scans)
def _on_files(
    evalset: Path, snapshot: Path, runs: Sequence[Path], chosen: tuple[Measure, ...], *,
    labels: Sequence[Path] = (), versions: Path | None = None, **options: Any,
) -> Evaluation:
    """The engine on native files (`run_engine`'s options), without the loader: `_Fallback`
    for input the fast checks refuse or a form the fast reader does not read."""
    # The large files are hashed meanwhile, in a second thread: their digests are wanted last.
    digests = file_sha256_later([evalset, *runs])
    model, snapshot_source, versions_source = load_snapshot(snapshot, versions)
    added, label_sources = read_labels(labels)

    def sources() -> tuple[SourceFile, ...]:
        evalset_digest, *run_digests = digests()
        return (
            SourceFile(display_path(evalset), "evalset", evalset_digest),
            snapshot_source,
            *(
                SourceFile(display_path(path), "run", digest)
                for path, digest in zip(runs, run_digests, strict=True)
            ),
            *label_sources,
            *versions_source,
        )

    inputs = EngineInputs(
        FileRecords(evalset, "questions"), model,
        tuple(FileRecords(path, "results") for path in runs), added, sources,
    )
    return run_engine(inputs, chosen, EngineOptions(**options))
