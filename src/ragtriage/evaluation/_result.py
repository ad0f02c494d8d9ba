"""What `evaluate` returns: per-question records, each run's evaluation, the whole result.

The result carries everything its reports show (scores, aggregates, the diagnosis and the
boundary section of every run), so renderers only format it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Protocol, get_args

from .._version import __version__
from ..calibration import LabelSources
from ..detectors import (
    RunBoundaries,
)
from ..diagnosis import RunDiagnosis, k_unused
from ..errors import Problem, choice_problems, counted, id_list
from ..loading import SourceFile
from ..metrics import (
    Aggregate,
    Measure,
    QuestionView,
    Score,
)
from ..schemas import LabelPolicy, Provenance, Question
from ..validation import LevelChoice

QuestionFilter = Callable[[Question], bool]
"""Keeps a question (True) or leaves it out; a `FieldFilter` reads only its ID, tags and
split."""


def option_problems(label_policy: object, evidence_level: object) -> list[Problem]:
    """A problem for a label policy or an evidence level that is none of the command line's
    choices (`--label-policy`, `--evidence-level`): another value would be taken for one of
    them."""
    return choice_problems(
        ("--label-policy", label_policy, get_args(LabelPolicy)),
        ("--evidence-level", evidence_level, get_args(LevelChoice)),
    )


class QuestionFields(Protocol):
    """What a `FieldFilter` reads of a question (a `Question` has it)."""

    @property
    def id(self) -> str: ...
    @property
    def tags(self) -> Sequence[str]: ...
    @property
    def split(self) -> str: ...


@dataclass(frozen=True)
class FieldFilter:
    """A question filter that reads only a question's ID, tags and split: the engine calls it
    on those as it read them, and parses no question as a model for it (any other filter is
    given each question's model)."""

    keep: Callable[[QuestionFields], bool]
    """True: the question is kept."""

    def __call__(self, question: QuestionFields) -> bool:
        return self.keep(question)


IdsCheck = Callable[[Sequence[str]], None]
"""Given every question ID of an evaluation set (holdout included, in file order) as soon as
they are read, before any run is read or scored; what it raises ends the evaluation."""
ViewBuilder = Callable[[Sequence[str]], tuple[QuestionView, ...]]
"""Builds the per-question views of the given question IDs of one run, in that order."""


@dataclass(frozen=True, slots=True)
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
    uncertain: Mapping[str, int] = field(default_factory=dict)
    """Per such measure: the items it left out for an uncertain label, `cannot_judge` or none
    (unlabelled); the gate's `max_judge_uncertain` counts a question for a measure when its
    count is above 0."""
    latency_ms: float | None = None
    """The result's recorded latency (None: not recorded), for latency budgets."""
    cost_usd: float | None = None
    """The result's recorded cost (None: not recorded), for cost budgets."""


NO_RESULT = "no result"
"""How a question a run has no result for is shown (`allow_missing`): never as a score."""


def no_result_note(run: str, question_ids: Sequence[str]) -> str | None:
    """`run 'a': no result for 2 questions, not scored: q3, q4`; None when there are none."""
    if not question_ids:
        return None
    return (
        f"run {run!r}: {NO_RESULT} for {counted(len(question_ids), 'question')}, not scored: "
        + id_list(question_ids)
    )


def k_note(run: RunEvaluation, k: int) -> str | None:
    """The note for a cut-off given for a run that uses none (every scored result records
    its context, or no question is scored), or used in place of the run's other
    `provenance.k`; None when neither."""
    if not run.k_used:
        why = "no question is scored" if not run.questions else "every result records its context"
        return f"-k {k} is not used for run {run.name!r}: {why}"
    if (recorded := run.provenance.k) not in (None, k):
        return f"-k {k} is used for run {run.name!r} in place of its provenance.k {recorded}"
    return None


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
    """Whether `k` cut the ranking of any scored question's result (False: every scored
    result records its context, or no question is scored)."""
    diagnosis: RunDiagnosis = field(kw_only=True)
    """Every question's failing stages and the per-stage breakdown, computed once here."""
    boundaries: RunBoundaries = field(kw_only=True)
    """The boundary section (permissions, injections, sensitive values, stale labels)."""
    file: str = field(default="", kw_only=True, compare=False)
    """The file the run was read from, as given (for messages; "" when not known)."""
    build_views: ViewBuilder = field(kw_only=True, repr=False, compare=False)
    """Builds the per-question views of some questions: every number above is computed
    already; a view is only for what shows a question's inputs (the HTML page) or diagnoses it
    again (`diagnosis.diagnose_run`)."""

    def __post_init__(self) -> None:
        # Frozen all through: a caller's write into the aggregates would reach every renderer.
        read_only = {
            "summary": MappingProxyType(dict(self.summary)),
            "slices": MappingProxyType(
                {name: MappingProxyType(dict(found)) for name, found in self.slices.items()}
            ),
            "label_sources": MappingProxyType(dict(self.label_sources)),
        }
        for name, value in read_only.items():
            object.__setattr__(self, name, value)

    def __deepcopy__(self, memo: dict[int, object]) -> RunEvaluation:
        """Itself: nothing in it changes (and a read-only mapping copies to no copy)."""
        return self

    @cached_property
    def views(self) -> tuple[QuestionView, ...]:
        """Every scored question's view, in `questions` order (built on first use)."""
        return self.build_views([r.question_id for r in self.questions])

    @property
    def k_unused(self) -> str | None:
        """Why `k` cut no ranking (`diagnosis.k_unused`); None when it cut some."""
        return k_unused(self.k_used, bool(self.questions))

    @property
    def cutoff(self) -> str:
        """How the context was chosen, for report headers: `k=5`, or that k is not used and
        why (`context recorded, k not used`, `no question scored, k not used`)."""
        return f"k={self.k}" if self.k_unused is None else f"{self.k_unused}, k not used"


ALL_QUESTIONS = "all questions"
"""The selection of a result that keeps every question (`Evaluation.selection`)."""


def selected_by(selection: str) -> str:
    """`, selected by tag refunds` after a count of questions; "" for every question."""
    return "" if selection == ALL_QUESTIONS else f", selected by {selection}"


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
    accept_self_labelling: bool = False
    """Whether labels made by a run's own generator were accepted (and flagged)."""
    calibration_notes: tuple[str, ...] = ()
    """Calibration records given that calibrate nothing here, each said once."""
    allow_missing: bool = False
    """Whether runs without a result for some questions were accepted (listed as no result)."""
    evalset_id: str | None = None
    """The evaluation set's `evalset_id` (None: not known, e.g. a hand-built result)."""
    snapshot_id: str | None = None
    """The snapshot's `snapshot_id` (None: not known)."""
    evalset_snapshot_id: str | None = None
    """The `snapshot_id` the evaluation set records (None: none, or not known)."""
    selection: str = ALL_QUESTIONS
    """Which questions were asked for (`filters.QuestionSelection.describe`: `all questions`,
    or e.g. `tag refunds and split dev`); the holdout is left out unless included either way."""
    questions: Sequence[Question] = field(default=(), repr=False, compare=False)
    """The questions evaluated (those the question filter kept), in evaluation-set order (on
    files read by `evaluate_native`, read again from the file when they are used)."""

    def recorded_elsewhere(self) -> list[str]:
        """A warning for an evaluation set that records another snapshot than the one its
        questions were scored against, and per run whose provenance records another snapshot
        or evaluation set (their IDs were read against these)."""
        recorded = [
            (f"evaluation set {self.evalset_id!r}", "snapshot_id", self.evalset_snapshot_id),
            *((f"run {run.name!r}", name, getattr(run.provenance, name))
              for run in self.runs for name in ("snapshot_id", "evalset_id")),
        ]
        return [
            f"{who} records {name} {value!r}; it was scored against {scored!r}"
            for who, name, value in recorded
            if value not in (None, scored := getattr(self, name))
        ]

    @property
    def diagnoses(self) -> tuple[RunDiagnosis, ...]:
        """Every run's diagnosis, in run order (each `RunEvaluation.diagnosis`)."""
        return tuple(run.diagnosis for run in self.runs)
