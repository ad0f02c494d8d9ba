"""`evaluate`: validate a dataset, score every run question by question, aggregate, diagnose.

The result carries everything its reports show (scores, aggregates, the diagnosis and the
boundary section of every run), so renderers only format it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from .._version import __version__
from ..calibration import CalibrationRecord, LabelSources, calibration_notes, run_label_sources
from ..detectors import (
    RunBoundaries,
    affected_metrics,
    boundary_details,
    find_self_labelling,
    run_boundaries,
    self_labelling_problems,
)
from ..diagnosis import QuestionDiagnosis, RunDiagnosis, diagnose_views, run_diagnosis
from ..errors import InputError, Problem
from ..loading import Dataset, EvidenceLevel, SnapshotIndex, SourceFile, load_dataset
from ..metrics import (
    Aggregate,
    Measure,
    PerQuestion,
    QuestionView,
    Score,
    aggregate,
    build_view,
    measures,
)
from ..metrics.stale import stale_ids
from ..metrics.support import invalid_citations
from ..paths import PathArg
from ..schemas import LabelPolicy, Provenance, Question
from ..validation import check_dataset

LevelChoice = Literal["auto", "document", "chunk", "span"]
QuestionFilter = Callable[[Question], bool]
ViewBuilder = Callable[[Sequence[str]], tuple[QuestionView, ...]]
"""Builds the per-question views of the given question IDs of one run, in that order."""


@dataclass(frozen=True)
class QuestionRecord:
    """Every measure's per-question score for one question of one run, with the evidence."""

    question_id: str
    """The question."""
    tags: tuple[str, ...]
    """Its slices."""
    split: str
    """Its split."""
    answerability: str
    """Its answerability label."""
    outcome: str | None
    """What the system did."""
    scores: Mapping[str, Score | None]
    """Per-question score by measure name; None = not applicable."""
    details: Mapping[str, tuple[str, ...]]
    """IDs behind the numbers (stale items per stage, invalid citations, uncertain claims)."""
    cannot_judge: Mapping[str, int] = field(default_factory=dict)
    """Per measure that reads `cannot_judge` labels: the items so labelled it left out."""
    latency_ms: float | None = None
    """The result's recorded latency (None: not recorded), for latency budgets."""
    cost_usd: float | None = None
    """The result's recorded cost (None: not recorded), for cost budgets."""


NO_RESULT = "no result"
"""How a question a run has no result for is shown (`allow_missing`): never as a score."""


def no_result_note(run: str, question_ids: Sequence[str]) -> str | None:
    """`run 'a': no result for 2 question(s), not scored: q3, q4`; None when there are none."""
    if not question_ids:
        return None
    return (
        f"run {run!r}: {NO_RESULT} for {len(question_ids)} question(s), not scored: "
        + ", ".join(question_ids)
    )


def k_not_used_note(run: str, k: int | None) -> str:
    """The note for a cut-off given for a run whose every result records its context."""
    return f"-k {k} is not used for run {run!r}: every result records its context"


@dataclass(frozen=True)
class RunEvaluation:
    """One run's per-question records and aggregates, overall and per slice and split."""

    name: str
    """Run name."""
    provenance: Provenance
    """The run's recorded conditions."""
    k: int | None
    """Cut-off used."""
    evidence_level: str
    """`document`, `chunk`, `span` or `mixed`: how evidence was matched."""
    questions: tuple[QuestionRecord, ...]
    """Per-question records, in evaluation-set order."""
    summary: Mapping[str, Aggregate]
    """Aggregates over all evaluated questions, by measure name."""
    slices: Mapping[str, Mapping[str, Aggregate]]
    """Aggregates per `tag:NAME` and `split:NAME`."""
    self_labelled: tuple[str, ...] = ()
    """Measures computed from labels made by this run's own generator (accepted explicitly)."""
    label_sources: Mapping[str, LabelSources] = field(default_factory=dict)
    """Per measure that reads labels: human/judge counts and the calibration that applies."""
    no_result: tuple[str, ...] = ()
    """Questions evaluated with no result in this run (only with `allow_missing`), in
    evaluation-set order: never scored, absent from `questions` and every aggregate."""
    k_used: bool = True
    """Whether `k` cut any result's ranking (False: every result records its context)."""
    diagnosis: RunDiagnosis = field(kw_only=True)
    """Every question's failing stages and the per-stage breakdown, computed once here."""
    boundaries: RunBoundaries = field(kw_only=True)
    """The boundary section (permissions, injections, sensitive values, stale labels)."""
    build_views: ViewBuilder = field(kw_only=True, repr=False, compare=False)
    """Builds the per-question views of some questions: every number above is computed
    already; a view is only for what shows a question's inputs (the HTML page) or diagnoses it
    again (`diagnosis.diagnose_run`)."""

    @cached_property
    def views(self) -> tuple[QuestionView, ...]:
        """Every scored question's view, in `questions` order (built on first use)."""
        return self.build_views([r.question_id for r in self.questions])

    @property
    def cutoff(self) -> str:
        """How the context was chosen, for report headers: `k=5`, or that k is not used."""
        if not self.k_used:
            return "context recorded, k not used"
        return f"k={self.k}"


@dataclass(frozen=True)
class Evaluation:
    """The result of `evaluate`: every run, the measures used and the provenance."""

    runs: tuple[RunEvaluation, ...]
    """One entry per run."""
    measures: tuple[Measure, ...]
    """Measures reported."""
    sources: tuple[SourceFile, ...]
    """Input files with hashes."""
    label_policy: LabelPolicy
    """Which labels counted."""
    allow_unreviewed: bool
    """Whether unreviewed answers were allowed (scored not applicable)."""
    tool_version: str = __version__
    """ragtriage version."""
    dataset: Dataset | None = field(default=None, repr=False, compare=False)
    """The dataset evaluated."""
    accept_self_labelling: bool = False
    """Whether labels made by a run's own generator were accepted (and flagged)."""
    calibration_notes: tuple[str, ...] = ()
    """Calibration records given that calibrate nothing here, each said once."""
    allow_missing: bool = False
    """Whether runs without a result for some questions were accepted (listed as no result)."""

    @property
    def diagnoses(self) -> tuple[RunDiagnosis, ...]:
        """Every run's diagnosis, in run order (each `RunEvaluation.diagnosis`)."""
        return tuple(run.diagnosis for run in self.runs)


def question_details(view: QuestionView) -> dict[str, tuple[str, ...]]:
    """The IDs behind one question's numbers (`QuestionRecord.details`)."""
    out: dict[str, tuple[str, ...]] = {}
    for stage in ("candidates", "context", "cited", "support"):
        ids = stale_ids(view, stage)
        if ids:
            out[f"stale_{stage}"] = ids
    claims = view.claims or ()
    bad = tuple(claim_id for claim_id, _ in invalid_citations(view))
    if bad:
        out["invalid_citation_claims"] = bad
    unsupported = tuple(c.claim_id for c in claims if c.state == "unsupported")
    if unsupported:
        out["unsupported_claims"] = unsupported
    uncertain = tuple(c.claim_id for c in claims if c.state in ("cannot_judge", "unlabelled"))
    # A non-answer covers no fact by definition: its facts need no label, so none is uncertain.
    if view.outcome == "answered":
        uncertain += tuple(
            f.fact_id for f in view.facts if f.state in ("cannot_judge", "unlabelled")
        )
    if uncertain:
        out["uncertain_labels"] = uncertain
    missing = tuple(
        f.fact_id for f in view.facts if view.outcome == "answered" and f.state == "not_covered"
    )
    if missing:
        out["missing_facts"] = missing
    absent = tuple(
        "|".join(g.any_of)
        for i, g in enumerate(view.question.required_evidence)
        if not view.group_satisfied(i, view.context)
    )
    if absent and view.question.answerability == "answerable":
        out["missing_evidence"] = absent
    out.update(boundary_details(view))
    return out


def _views_of(views: Sequence[QuestionView]) -> ViewBuilder:
    by_id = {v.question.id: v for v in views}
    return lambda question_ids: tuple(by_id[qid] for qid in question_ids)


def question_level(choice: LevelChoice, index: SnapshotIndex, q: Question) -> EvidenceLevel:
    """How one question's evidence is matched: `choice`, or for `auto` what its required
    evidence IDs name (documents, chunks or spans)."""
    if choice != "auto":
        return choice
    return index.evidence_level(i for g in q.required_evidence for i in g.any_of)


def per_question(
    records: Sequence[QuestionRecord], chosen: Sequence[Measure]
) -> dict[str, PerQuestion]:
    """Each measure's per-question scores in array form, in `records` order."""
    out = {}
    for m in chosen:
        left_out = None
        if m.spec.cannot_judge is not None:
            left_out = [r.cannot_judge.get(m.name, 0) for r in records]
        out[m.name] = PerQuestion.from_scores([r.scores[m.name] for r in records], left_out)
    return out


def _aggregates(
    scores: Mapping[str, PerQuestion], chosen: Sequence[Measure], rows: np.ndarray | None = None
) -> dict[str, Aggregate]:
    out = {}
    for m in chosen:
        part = scores[m.name]
        if rows is not None:
            left_out = None if part.cannot_judge is None else part.cannot_judge[rows]
            part = PerQuestion(part.numerator[rows], part.denominator[rows], left_out)
        out[m.name] = aggregate(m.name, m.spec.averaging, part)
    return out


def summarize(records: Sequence[QuestionRecord], chosen: Sequence[Measure]) -> dict[str, Aggregate]:
    """Aggregate each measure over a set of per-question records."""
    return _aggregates(per_question(records, chosen), chosen)


def _slices(
    records: Sequence[QuestionRecord], chosen: Sequence[Measure], scores: Mapping[str, PerQuestion]
) -> dict[str, dict[str, Aggregate]]:
    groups: dict[str, list[int]] = {}
    for row, rec in enumerate(records):
        groups.setdefault(f"split:{rec.split}", []).append(row)
        for tag in rec.tags:
            groups.setdefault(f"tag:{tag}", []).append(row)
    return {
        key: _aggregates(scores, chosen, np.array(groups[key], dtype=np.int64))
        for key in sorted(groups)
    }


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
    bad holdout result is reported as any other (see `Request.load`).
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


def run_evidence_level(levels: Iterable[str]) -> str:
    """A run's evidence level from its questions' (those with required evidence): the one
    level they share, `mixed`, or `document` when no question requires evidence."""
    names = set(levels)
    return names.pop() if len(names) == 1 else ("mixed" if names else "document")


def question_record(
    view: QuestionView,
    scores: Mapping[str, Score | None],
    details: Mapping[str, tuple[str, ...]],
    cannot_judge: Mapping[str, int],
) -> QuestionRecord:
    """One question's record: what its view says of it, with its computed scores and details."""
    question = view.question
    return QuestionRecord(
        question_id=question.id,
        tags=tuple(question.tags),
        split=question.split,
        answerability=question.answerability,
        outcome=view.outcome,
        scores=scores,
        details=details,
        cannot_judge=cannot_judge,
        latency_ms=view.result.latency_ms,
        cost_usd=view.result.cost_usd,
    )


def run_evaluation(
    name: str,
    provenance: Provenance,
    k: int | None,
    evidence_level: str,
    records: Sequence[QuestionRecord],
    views: Sequence[QuestionView],
    verdicts: Sequence[QuestionDiagnosis] | None,
    chosen: Sequence[Measure],
    *,
    self_labelled: tuple[str, ...] = (),
    calibrations: Sequence[CalibrationRecord] = (),
    no_result: tuple[str, ...] = (),
) -> RunEvaluation:
    """One run's result from its per-question records, views and verdicts (all in
    evaluation-set order): aggregates, slices, label sources, diagnosis and boundaries.

    `verdicts` None: every view is diagnosed here (`diagnosis.diagnose_views`).
    """
    records = tuple(records)
    scores = per_question(records, chosen)
    # A run without results says nothing about k: shown as given.
    k_used = not views or any(v.context_derived for v in views)
    if verdicts is None:
        diagnosis = diagnose_views(
            name, views, k=k, evidence_level=evidence_level, no_result=no_result, k_used=k_used
        )
    else:
        diagnosis = run_diagnosis(
            name, verdicts, k=k, evidence_level=evidence_level, no_result=no_result,
            k_used=k_used,
        )
    return RunEvaluation(
        name=name,
        provenance=provenance,
        k=k,
        evidence_level=evidence_level,
        questions=records,
        summary=_aggregates(scores, chosen),
        slices=_slices(records, chosen, scores),
        self_labelled=self_labelled,
        label_sources=run_label_sources(chosen, views, [r.scores for r in records], calibrations),
        no_result=no_result,
        k_used=k_used,
        diagnosis=diagnosis,
        boundaries=run_boundaries(views, self_labelled, [r.details for r in records]),
        build_views=_views_of(views),
    )


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
            )
        )
    return Evaluation(
        runs=tuple(out),
        measures=chosen,
        sources=dataset.sources,
        label_policy=label_policy,
        allow_unreviewed=allow_unreviewed,
        dataset=dataset,
        accept_self_labelling=accept_self_labelling,
        calibration_notes=calibration_notes(
            [r.label_sources for r in out], chosen, calibrations
        ),
        allow_missing=allow_missing,
    )


def load_and_evaluate(
    dataset: PathArg,
    *,
    snapshot: PathArg | None = None,
    runs: Sequence[PathArg] = (),
    labels: Sequence[PathArg] = (),
    **options: object,
) -> Evaluation:
    """Load files and evaluate every question (see `evaluate` for the options).

    No request policy: the holdout is scored and nothing is recorded. `ragtriage.evaluate_files`
    is the call that does what `ragtriage evaluate` does.
    """
    loaded = load_dataset(dataset, snapshot=snapshot, runs=runs, labels=labels)
    return evaluate(loaded, **options)  # type: ignore[arg-type]
