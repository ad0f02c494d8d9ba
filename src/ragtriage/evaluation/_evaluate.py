"""`evaluate`: validate a dataset, score every run question by question, aggregate, diagnose."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..calibration import CalibrationRecord, calibration_notes
from ..detectors import (
    affected_metrics,
    find_self_labelling,
    self_labelling_problems,
)
from ..errors import InputError, Problem
from ..loading import Dataset, SnapshotIndex, load_dataset
from ..metrics import (
    build_view,
    measures,
)
from ..paths import PathArg
from ..schemas import LabelPolicy
from ..validation import check_dataset, parse_k
from ._assemble import (
    question_details,
    question_level,
    question_record,
    run_evaluation,
    run_evidence_level,
)
from ._result import Evaluation, LevelChoice, QuestionFilter


def _cutoffs(dataset: Dataset, k: int | None) -> dict[str, int | None]:
    return {run.name: k or run.provenance.k or dataset.default_k for run in dataset.runs}


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
        _cutoffs(dataset, k),
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
) -> Evaluation:
    """Validate and score every run of a dataset; raise `InputError` listing every problem.

    A measure whose counted labels include judge labels is calibrated when `calibrations`
    holds a record for every such judge (same model and prompt version); see `label_sources`.

    A judge label made by the run's own generator (same name) is refused unless
    `accept_self_labelling`; then the affected measures are listed per run (`self_labelled`).

    A run without a result for some questions is refused unless `allow_missing`; then those
    questions are listed per run (`no_result`) and left out of its records and aggregates.
    """
    chosen = measures(metrics)
    if k is not None:  # 0, negatives, fractions and values past the largest cut-off: refused
        k = parse_k(k)
    ks = _cutoffs(dataset, k)
    problems = input_problems(
        dataset,
        k=k,
        label_policy=label_policy,
        allow_unreviewed=allow_unreviewed,
        accept_self_labelling=accept_self_labelling,
        allow_missing=allow_missing,
    )
    if problems:
        raise InputError(problems)
    self_made = {found.run: found for found in find_self_labelling(dataset.runs)}
    index = SnapshotIndex.build(dataset.snapshot)
    questions = [
        q for q in dataset.evalset.questions if question_filter is None or question_filter(q)
    ]
    levels = {q.id: question_level(evidence_level, index, q) for q in questions}
    level = run_evidence_level(levels[q.id] for q in questions if q.required_evidence)
    out = []
    for run in dataset.runs:
        results = {res.question_id: res for res in run.results}
        views = tuple(
            build_view(q, results[q.id], index, levels[q.id], ks[run.name], label_policy)
            for q in questions
            if q.id in results
        )
        records = tuple(
            question_record(
                v,
                {m.name: m.compute(v) for m in chosen},
                question_details(v),
                {m.name: count for m in chosen if (count := m.cannot_judge(v)) is not None},
            )
            for v in views
        )
        self_labelled = (
            affected_metrics({m.name: m.spec.requires for m in chosen}, self_made[run.name])
            if run.name in self_made
            else ()
        )
        out.append(
            run_evaluation(
                run.name,
                run.provenance,
                ks[run.name],
                level,
                records,
                views,
                None,
                chosen,
                self_labelled=self_labelled,
                calibrations=calibrations,
                no_result=tuple(q.id for q in questions if q.id not in results),
                file=dataset.run_file(run.name),
            )
        )
    return Evaluation(
        runs=tuple(out),
        measures=chosen,
        sources=dataset.sources,
        label_policy=label_policy,
        allow_unreviewed=allow_unreviewed,
        accept_self_labelling=accept_self_labelling,
        calibration_notes=calibration_notes(
            [r.label_sources for r in out], chosen, calibrations
        ),
        allow_missing=allow_missing,
        evalset_id=dataset.evalset.evalset_id,
        snapshot_id=dataset.snapshot.snapshot_id,
        questions=tuple(questions),
    )


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
    """Load files (with a versions file applied to the snapshot) and evaluate them question by
    question (see `evaluate` for the options).

    `input_filter` marks the questions the input holds for the caller (None: all): the whole
    input is checked first (`InputError` with every problem, the others' results included),
    then the others are left out, as if absent from the files. No request policy: nothing is
    said or recorded about a holdout; `ragtriage.evaluate_files` is the call that does what
    `ragtriage evaluate` does.
    """
    from ..holdout import keep_questions
    from ..versions import load_versions

    loaded = load_dataset(dataset, snapshot=snapshot, runs=runs, labels=labels)
    if versions is not None:
        loaded = load_versions(loaded, versions)
    if input_filter is not None:
        checks = ("k", "label_policy", "allow_unreviewed", "accept_self_labelling",
                  "allow_missing")
        problems = input_problems(loaded, **{n: options[n] for n in checks if n in options})
        if problems:
            raise InputError(problems)
        loaded = keep_questions(loaded, input_filter)
    return evaluate(loaded, **options)
