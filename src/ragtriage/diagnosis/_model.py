"""The values diagnosis produces: findings, per-question verdicts and per-slice breakdowns."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from ..schemas import question_slices


@dataclass(frozen=True, slots=True)
class Finding:
    """One failed stage of one question, with the IDs that prove it and a one-line reason."""

    stage: str
    """The stage name (one of `stage_order()`)."""
    ids: tuple[str, ...]
    """The IDs that prove it: documents, chunks, claims or facts, depending on the stage."""
    why: str
    """One line a person can read without looking anything up."""

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its constructor's arguments (see `QuestionDiagnosis.__reduce__`).
        return (Finding, (self.stage, self.ids, self.why))


@dataclass(frozen=True, slots=True)
class QuestionDiagnosis:
    """One question's verdict: the first failing stage in pipeline order, then the others."""

    question_id: str
    """The question."""
    primary: str
    """The first failing stage in pipeline order; `ok` when nothing failed."""
    secondary: tuple[str, ...]
    """The other failing stages, in pipeline order."""
    findings: tuple[Finding, ...]
    """Every finding, in pipeline order (empty for `ok`)."""
    tags: tuple[str, ...] = ()
    """The question's tags (slices), for breakdowns."""
    split: str = "dev"
    """The question's split, for breakdowns."""

    @property
    def stages(self) -> tuple[str, ...]:
        """Primary then secondary stages."""
        return (self.primary, *self.secondary)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its constructor's arguments: the slotted dataclass's default state takes
        # about twice as long to read (many verdicts are sent as `verdict_fields` instead).
        return (
            QuestionDiagnosis,
            (self.question_id, self.primary, self.secondary, self.findings, self.tags, self.split),
        )


VerdictFields = tuple[
    str, str, tuple[str, ...], tuple[tuple[str, tuple[str, ...], str], ...], tuple[str, ...], str
]
"""A verdict's fields, its findings' too, as plain tuples (`verdict_fields`)."""


def verdict_fields(verdicts: Sequence[QuestionDiagnosis]) -> list[VerdictFields]:
    """Verdicts as plain tuples of their fields, their findings' too: what a forked worker
    sends back, pickled in a third of the time the objects take (each object's `__reduce__`
    is a Python call); `verdicts_from_fields` makes the verdicts again."""
    return [
        (v.question_id, v.primary, v.secondary,
         tuple([(f.stage, f.ids, f.why) for f in v.findings]), v.tags, v.split)
        for v in verdicts
    ]


def verdicts_from_fields(fields: Sequence[VerdictFields]) -> list[QuestionDiagnosis]:
    """The verdicts whose fields `verdict_fields` gave."""
    return [
        QuestionDiagnosis(
            question_id, primary, secondary, tuple([Finding(*f) for f in found]), tags, split
        )
        for question_id, primary, secondary, found, tags, split in fields
    ]


@dataclass(frozen=True)
class StageCount:
    """How often one stage occurred in a slice; the denominator is the slice's question count."""

    stage: str
    """The stage."""
    primary: int
    """Questions whose primary stage this is."""
    present: int
    """Questions where this stage was found at all (primary or secondary)."""
    questions: int
    """Questions in the slice (the denominator of both rates)."""

    @property
    def primary_rate(self) -> float | None:
        """primary / questions; None for an empty slice."""
        return self.primary / self.questions if self.questions else None

    @property
    def present_rate(self) -> float | None:
        """present / questions; None for an empty slice."""
        return self.present / self.questions if self.questions else None


@dataclass(frozen=True)
class SliceBreakdown:
    """Stage counts for one slice: `all`, `tag:NAME` or `split:NAME`."""

    key: str
    """`all`, `tag:NAME` or `split:NAME`."""
    questions: int
    """Questions in the slice."""
    stages: tuple[StageCount, ...]
    """One entry per stage, in pipeline order (zeros included)."""

    @property
    def failing(self) -> int:
        """Questions whose primary stage is not `ok`."""
        return self.questions - self.count("ok").primary

    @property
    def failure_rate(self) -> float | None:
        """failing / questions; None for an empty slice."""
        return self.failing / self.questions if self.questions else None

    def count(self, stage: str) -> StageCount:
        """The counts of one stage (zeros for a stage that never occurred)."""
        for entry in self.stages:
            if entry.stage == stage:
                return entry
        return StageCount(stage, 0, 0, self.questions)


@dataclass(frozen=True)
class Breakdown:
    """Stage counts overall, per tag and per split."""

    overall: SliceBreakdown
    """Every diagnosed question."""
    by_tag: tuple[SliceBreakdown, ...]
    """One entry per tag, sorted by key."""
    by_split: tuple[SliceBreakdown, ...]
    """One entry per split, sorted by key."""

    def worst_first(self) -> tuple[SliceBreakdown, ...]:
        """Tag and split slices, highest failure rate first (then most failures, then key)."""
        slices = [*self.by_tag, *self.by_split]
        return tuple(
            sorted(slices, key=lambda s: (-(s.failure_rate or 0.0), -s.failing, s.key))
        )


def k_unused(k_used: bool, scored: bool) -> str | None:
    """Why a run's `k` cut no ranking: `context recorded` (every scored result records its
    context) or `no question scored`; None when it cut some."""
    if k_used:
        return None
    return "context recorded" if scored else "no question scored"


@dataclass(frozen=True)
class RunDiagnosis:
    """One run's diagnosis: every question's verdict and the breakdown."""

    run: str
    """Run name."""
    questions: tuple[QuestionDiagnosis, ...]
    """Per-question verdicts, in evaluation-set order."""
    breakdown: Breakdown
    """Counts and rates per stage overall, per tag and per split."""
    stages: tuple[str, ...] = ()
    """The pipeline order used (built-in stages plus registered ones)."""
    k: int | None = None
    """The cut-off the run was evaluated with."""
    evidence_level: str = "document"
    """How evidence was matched: `document`, `chunk`, `span` or `mixed`."""
    no_result: tuple[str, ...] = ()
    """Questions the run has no result for (`allow_missing`): not diagnosed, listed."""
    k_used: bool = True
    """Whether k cut the ranking of any diagnosed question's result (False: every one
    records its context, or no question is diagnosed)."""

    @property
    def cutoff(self) -> str | None:
        """`k=5`, `context recorded, k not used`, `no question scored, k not used`, or None
        when there is no k."""
        if (why := k_unused(self.k_used, bool(self.questions))) is not None:
            return f"{why}, k not used"
        return None if self.k is None else f"k={self.k}"

    def question(self, question_id: str) -> QuestionDiagnosis:
        """The verdict of one question (KeyError when it was not diagnosed)."""
        for entry in self.questions:
            if entry.question_id == question_id:
                return entry
        raise KeyError(question_id)


_Verdicts = Counter[tuple[str, tuple[str, ...]]]
"""How many questions of a slice have each verdict: (primary, secondary) -> count."""


def _slice(key: str, verdicts: _Verdicts, order: Sequence[str]) -> SliceBreakdown:
    # Counted per distinct verdict, not per question: a run may have a million of them.
    primary: Counter[str] = Counter()
    present: Counter[str] = Counter()
    for (first, others), count in verdicts.items():
        primary[first] += count
        for stage in {first, *others}:
            present[stage] += count
    total = verdicts.total()
    counts = tuple(StageCount(stage, primary[stage], present[stage], total) for stage in order)
    return SliceBreakdown(key, total, counts)


def build_breakdown(
    questions: Sequence[QuestionDiagnosis], order: Sequence[str]
) -> Breakdown:
    """Count stages overall, per tag and per split (rates over each slice's questions)."""
    # One pass over the questions, in C; then one step per distinct (verdict, slices).
    kinds = Counter(map(attrgetter("primary", "secondary", "tags", "split"), questions))
    overall: _Verdicts = Counter()
    slices: dict[str, _Verdicts] = {}
    for (primary, secondary, tags, split), count in kinds.items():
        verdict = (primary, secondary)
        overall[verdict] += count
        for key in question_slices(tags, split):
            slices.setdefault(key, Counter())[verdict] += count
    keys = sorted(slices)
    return Breakdown(
        overall=_slice("all", overall, order),
        by_tag=tuple(_slice(key, slices[key], order) for key in keys if key.startswith("tag:")),
        by_split=tuple(
            _slice(key, slices[key], order) for key in keys if key.startswith("split:")
        ),
    )
