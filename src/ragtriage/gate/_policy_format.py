"""The release policy file's format: strict pydantic models of its sections (`Policy`) and a
policy as read (`LoadedPolicy`); `_policy` reads a file into them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import ConfigDict, Field

from ..metrics import parse_measure
from ..schemas import SchemaVersion, StrictModel

LABEL_LAYERS = ("support", "coverage")
"""Layers whose measures read review labels: the judge-uncertain limit applies to them."""

RULE_SECTIONS = ("block", "no_regression", "threshold", "drop", "latency", "cost", "sensitive")
"""The policy sections that hold rules: a policy without any of them gates nothing."""


class _PolicyModel(StrictModel):
    """Policy sections: a bound of NaN or infinity is refused, so no rule can pass vacuously
    (every comparison with NaN is false, and `<= inf` always holds)."""

    model_config = ConfigDict(allow_inf_nan=False)


class Defaults(_PolicyModel):
    """Limits that apply to every threshold rule that does not set its own."""

    max_not_applicable: float | None = Field(default=None, ge=0, le=1)
    """Largest share of the slice's questions without a value before the metric fails."""
    max_judge_uncertain: float | None = Field(default=None, ge=0, le=1)
    """Largest share of the slice's questions with `cannot_judge`/unlabelled labels of the
    kind a label-based metric reads (claims for support, facts for coverage) before it fails."""
    alpha: float = Field(default=0.05, gt=0, lt=1)
    """Significance level of `significant` drop rules."""


class BlockRule(_PolicyModel):
    """Blocking: no question in the slice may be diagnosed with the stage (primary or secondary)."""

    stage: str
    """A diagnosis stage, e.g. `permission_leak` or `stale_evidence`."""
    slice: str = "all"
    """`all`, `tag:NAME` or `split:NAME`."""
    max_questions: int = Field(default=0, ge=0)
    """How many such questions are tolerated (0: any one blocks)."""
    name: str | None = None
    """Rule name in the output; generated when absent."""


class SensitiveRule(_PolicyModel):
    """Blocking: no answer (or context) may hold a value the sensitive-content detectors find."""

    where: Literal["answer", "context", "any"] = "answer"
    """Where to look: the answer, the final context, or either."""
    slice: str = "all"
    """`all`, `tag:NAME` or `split:NAME`."""
    max_questions: int = Field(default=0, ge=0)
    """How many such questions are tolerated (0: any one blocks)."""
    name: str | None = None
    """Rule name in the output; generated when absent."""


class NoRegressionRule(_PolicyModel):
    """Blocking: no protected question may regress against the baseline."""

    splits: list[str] = Field(default_factory=lambda: ["regression"])
    """Splits whose questions are protected."""
    tags: list[str] = Field(default_factory=lambda: ["fixed-regression"])
    """Tags whose questions are protected."""
    name: str | None = None
    """Rule name in the output."""


class ThresholdRule(_PolicyModel):
    """A metric's value over a slice must stay within bounds."""

    metric: str
    """Measure name, e.g. `evidence_recall` or `ndcg@10`."""
    slice: str = "all"
    """`all`, `tag:NAME` or `split:NAME`."""
    min: float | None = None
    """Lowest allowed value."""
    max: float | None = None
    """Highest allowed value."""
    max_not_applicable: float | None = Field(default=None, ge=0, le=1)
    """Overrides `defaults.max_not_applicable`."""
    max_judge_uncertain: float | None = Field(default=None, ge=0, le=1)
    """Overrides `defaults.max_judge_uncertain`."""
    name: str | None = None
    """Rule name in the output."""


class DropRule(_PolicyModel):
    """A metric may not get worse than the baseline by more than an amount (paired questions)."""

    metric: str
    """Measure name."""
    max_drop: float | None = Field(default=None, ge=0)
    """Largest allowed change in the worse direction (absolute, in the metric's units)."""
    significant: bool = False
    """Fail only on a drop the paired test finds significant at `alpha` (and above `max_drop`)."""
    alpha: float | None = Field(default=None, gt=0, lt=1)
    """Overrides `defaults.alpha`."""
    name: str | None = None
    """Rule name in the output."""


class LatencyBudget(_PolicyModel):
    """Percentiles of `latency_ms` over the gated questions."""

    p50_ms: float | None = Field(default=None, gt=0)
    """Median budget."""
    p95_ms: float | None = Field(default=None, gt=0)
    """95th percentile budget."""
    max_missing: float = Field(default=0.0, ge=0, le=1)
    """Largest share of questions without a recorded latency (fail closed beyond it)."""


class CostBudget(_PolicyModel):
    """Mean `cost_usd` per gated question."""

    max_mean_usd: float = Field(gt=0)
    """Budget per question, in US dollars."""
    max_missing: float = Field(default=0.0, ge=0, le=1)
    """Largest share of questions without a recorded cost (fail closed beyond it)."""


class Policy(_PolicyModel):
    """A release policy, agreed before the results are seen."""

    schema_version: SchemaVersion = 1
    """Policy format version."""
    name: str = "release policy"
    """Shown in every output."""
    description: str | None = None
    """Free text."""
    require_baseline: bool = False
    """Refuse to gate without `--baseline` (else baseline rules are reported as skipped)."""
    defaults: Defaults = Field(default_factory=Defaults)
    """Limits shared by the rules."""
    block: list[BlockRule] = Field(default_factory=list)
    """Blocking stage rules."""
    no_regression: NoRegressionRule | None = None
    """Blocking regression rule (needs a baseline)."""
    threshold: list[ThresholdRule] = Field(default_factory=list)
    """Bounds per metric and slice."""
    drop: list[DropRule] = Field(default_factory=list)
    """Allowed drops against the baseline."""
    latency: LatencyBudget | None = None
    """Latency budget."""
    cost: CostBudget | None = None
    """Cost budget."""
    sensitive: list[SensitiveRule] = Field(default_factory=list)
    """Blocking sensitive-content rules (`ragtriage.detectors.sensitive` detectors)."""


@dataclass(frozen=True)
class LoadedPolicy:
    """A policy as read: the model, where it came from and the file's SHA-256."""

    policy: Policy
    """The policy."""
    path: str
    """The file as given."""
    sha256: str
    """SHA-256 of the file's bytes (a policy edited after seeing results shows in review)."""

    def metrics(self) -> tuple[str, ...]:
        """Every measure the policy reads."""
        names = [r.metric for r in self.policy.threshold] + [r.metric for r in self.policy.drop]
        return tuple(dict.fromkeys(parse_measure(n).name for n in names))
