"""The values a comparison produces: groups of runs, per-question changes, per-metric tests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .._version import __version__
from ..diagnosis import QuestionDiagnosis
from ..errors import id_list
from ..evaluation import ALL_QUESTIONS
from ..loading import SourceFile
from ..metrics import Measure
from ._provenance import ProvenanceDiff
from ._stats import BootstrapCI, TestResult

STATUS_ORDER: tuple[str, ...] = ("regressed", "mixed", "improved", "changed", "unchanged")
"""Question statuses in report order: regressions first."""

StageMap = Mapping[str, Mapping[str, QuestionDiagnosis]]
"""Per run name, per question ID: the diagnosis stages."""


@dataclass(frozen=True)
class RepeatStat:
    """A metric's spread over the repeats of one configuration."""

    metric: str
    """Measure name."""
    mean: float | None
    """Mean of the runs' aggregate values (None when no run has one)."""
    std: float | None
    """Sample standard deviation (n - 1) of those values; None below two values."""
    runs_with_value: int
    """How many repeats had an aggregate value."""


@dataclass(frozen=True)
class FlakyQuestion:
    """A question whose outcome or primary stage changes between repeats."""

    question_id: str
    """The question."""
    outcomes: tuple[str | None, ...]
    """Outcome per repeat, in run order."""
    stages: tuple[str | None, ...]
    """Primary stage per repeat (None without a diagnosis)."""


@dataclass(frozen=True)
class RunGroup:
    """One configuration: a single run, or repeats of it differing only in the seed."""

    label: str
    """The run name, or the repeats' names joined by `+`."""
    runs: tuple[str, ...]
    """Run names."""
    conditions: Mapping[str, str | None]
    """Recorded conditions (every seed listed for repeats)."""
    repeats: tuple[RepeatStat, ...]
    """Per-metric mean and spread over repeats; empty for a single run."""
    flaky: tuple[FlakyQuestion, ...]
    """Questions whose outcome or stage changes between repeats."""


@dataclass(frozen=True)
class MetricChange:
    """One metric on one question: base and candidate value and what happened."""

    metric: str
    """Measure name."""
    layer: str
    """The metric's layer."""
    base: float | None
    """Base value (pooled over repeats)."""
    candidate: float | None
    """Candidate value (pooled over repeats)."""
    status: str
    """`improved`, `regressed`, `unchanged`, `not_paired` or `not_applicable`."""


@dataclass(frozen=True)
class QuestionChange:
    """What changed on one question between base and candidate."""

    question_id: str
    """The question."""
    tags: tuple[str, ...]
    """Its slices."""
    split: str
    """Its split."""
    status: str
    """`regressed`, `mixed`, `improved`, `changed` (stage only) or `unchanged`."""
    base_stage: str | None
    """Base primary stage (None without a diagnosis)."""
    candidate_stage: str | None
    """Candidate primary stage."""
    metrics: tuple[MetricChange, ...]
    """Every metric's change."""
    layers: Mapping[str, str]
    """Per layer: the combined status of its metrics."""

    @property
    def stage_change(self) -> str | None:
        """`two-facts: retrieval_miss -> ok`, or None when there is no diagnosis."""
        if self.base_stage is None and self.candidate_stage is None:
            return None
        return f"{self.question_id}: {self.base_stage or '-'} -> {self.candidate_stage or '-'}"


@dataclass(frozen=True)
class MetricComparison:
    """One metric over the paired questions: the difference, its interval, a paired test."""

    metric: str
    """Measure name."""
    layer: str
    """Its layer."""
    direction: str
    """`higher` or `lower` is better."""
    kind: str
    """`ratio` or `boolean`."""
    averaging: str
    """`macro` or `micro`."""
    paired: int
    """Questions where both have a value (the only ones compared)."""
    unpaired: int
    """Questions left out: a value on one side only, or on neither."""
    base: float | None
    """Base aggregate over the paired questions."""
    candidate: float | None
    """Candidate aggregate over the paired questions."""
    difference: float | None
    """candidate - base (None without paired questions)."""
    ci: BootstrapCI | None
    """Bootstrap interval of the difference; None below 2 paired questions (not applicable)."""
    test: TestResult | None
    """Paired test of no difference."""
    wins: int
    """Paired questions where the candidate is better."""
    ties: int
    """Paired questions with equal values."""
    losses: int
    """Paired questions where the candidate is worse."""
    base_all: float | None = None
    """Base aggregate over every question where the base has a value (for a single run,
    what `evaluate` reports); differs from `base` when questions are left unpaired."""
    candidate_all: float | None = None
    """Candidate aggregate over every question where the candidate has a value."""


@dataclass(frozen=True)
class PairComparison:
    """A candidate configuration against the base."""

    base: RunGroup
    """The base."""
    candidate: RunGroup
    """The candidate."""
    provenance: ProvenanceDiff
    """Conditions that differ."""
    metrics: tuple[MetricComparison, ...]
    """Per metric."""
    questions: tuple[QuestionChange, ...]
    """Per paired question, regressions first (`STATUS_ORDER`), then evaluation-set order."""
    base_no_result: tuple[str, ...] = ()
    """Questions left out because no run of the base has a result for them (`allow_missing`)."""
    candidate_no_result: tuple[str, ...] = ()
    """Questions left out because no run of the candidate has a result for them."""

    def left_out(self) -> str | None:
        """`questions left out (no result): 2 of base 'a' (q3, q4); 0 of candidate 'b'`.

        None when both sides answered every question they were compared on."""
        if not self.base_no_result and not self.candidate_no_result:
            return None
        sides = [
            (self.base_no_result, f"base {self.base.label!r}"),
            (self.candidate_no_result, f"candidate {self.candidate.label!r}"),
        ]
        return "questions left out (no result): " + "; ".join(
            f"{len(ids)} of {who}" + (f" ({id_list(ids)})" if ids else "") for ids, who in sides
        )

    def count(self, status: str) -> int:
        """How many questions have this status."""
        return sum(q.status == status for q in self.questions)


@dataclass(frozen=True)
class Comparison:
    """The result of `compare`: the groups, each candidate against the base, and the settings."""

    groups: tuple[RunGroup, ...]
    """Configurations; the first is the base."""
    pairs: tuple[PairComparison, ...]
    """Each later group against the first."""
    measures: tuple[Measure, ...]
    """Measures compared."""
    seed: int
    """Seed of every resampling."""
    resamples: int
    """Bootstrap resamples."""
    permutations: int
    """Monte Carlo resamples of the permutation test (when not exact)."""
    level: float
    """Confidence level of the intervals."""
    questions: int
    """Questions in the compared set."""
    warnings: tuple[str, ...]
    """Confounded comparisons and allowed differences, in words."""
    sources: tuple[SourceFile, ...]
    """Input files with hashes."""
    tool_version: str = __version__
    """ragtriage version."""
    selection: str = ALL_QUESTIONS
    """Which questions were asked for (the evaluation's `selection`)."""

    def not_applicable(self) -> tuple[str, ...]:
        """The measures not applicable in any run (in measure order): in every pair, neither
        side has a value, over the paired questions or over the run's own (`base_all`,
        `candidate_all`, what `evaluate` reports). A terminal table names them on one line
        instead of a row; a measure one run has a value for keeps its row."""
        if not self.pairs:
            return ()
        return tuple(
            name
            for name in dict.fromkeys(m.name for m in self.measures)
            if all(
                (m.base, m.candidate, m.base_all, m.candidate_all) == (None, None, None, None)
                for p in self.pairs
                for m in p.metrics
                if m.metric == name
            )
        )
