"""The release policy file (TOML, or JSON when named `*.json`): a strict pydantic model, read
with every problem listed."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar, cast

from pydantic import ConfigDict, Field, ValidationError

from ..errors import InputError, Problem, ProblemCollector, found_text
from ..fileio import decode, file_problem, parse_json, parse_toml, read_bytes
from ..loading import pydantic_problems
from ..metrics import lookup, parse_measure
from ..paths import PathArg, as_path, file_suffix
from ..schemas import SchemaVersion, StrictModel

_SLICE = re.compile(r"^(all|tag:.+|split:(dev|regression|holdout))$")

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
    """Largest share of the slice's questions with `cannot_judge`/unlabelled claims or facts
    before a label-based metric (support, coverage layers) fails."""
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


_M = TypeVar("_M", bound=_PolicyModel)


@dataclass(frozen=True)
class _Rule(Generic[_M]):
    """A rule as far as it is well-formed: its fields that validate (those with their default
    when absent), and the names of those that do not, so a meaning check runs on every
    well-formed field even when a sibling field of the same rule is malformed."""

    rule: _M
    """The rule; a field named in `bad` must not be read (it may be unset)."""
    bad: frozenset[str]
    """Fields that are malformed or missing (their problems come from the whole policy's
    validation)."""

    def ok(self, *fields: str) -> bool:
        """Whether every one of `fields` is well-formed (a check reading them may run)."""
        return self.bad.isdisjoint(fields)


def _valid(model: type[_M], value: object) -> _Rule[_M] | None:
    """The well-formed part of one rule, or None when it is not a table at all."""
    if not isinstance(value, dict):
        return None
    try:
        return _Rule(model.model_validate(value), frozenset())
    except ValidationError as exc:
        bad = frozenset(str(e["loc"][0]) for e in exc.errors() if e["loc"])
    # strict models coerce nothing, so a field that validated holds the value as written
    good = {k: v for k, v in value.items() if k in model.model_fields and k not in bad}
    return _Rule(cast(_M, model.model_construct(**good)), bad)


def _valid_list(model: type[_M], value: object) -> list[tuple[int, _Rule[_M]]]:
    if not isinstance(value, list):
        return []
    rules = ((i, _valid(model, item)) for i, item in enumerate(value))
    return [(i, rule) for i, rule in rules if rule is not None]


@dataclass(frozen=True)
class _Rules:
    """The well-formed parts of a policy's rules, each with its index in the file: the
    meaning checks run on every well-formed field, even when another field of the same rule
    or another part of the file is malformed, so one pass reports every problem."""

    block: list[tuple[int, _Rule[BlockRule]]]
    threshold: list[tuple[int, _Rule[ThresholdRule]]]
    drop: list[tuple[int, _Rule[DropRule]]]
    sensitive: list[tuple[int, _Rule[SensitiveRule]]]
    no_regression: _Rule[NoRegressionRule] | None
    latency: _Rule[LatencyBudget] | None

    @classmethod
    def of(cls, data: dict[str, Any]) -> _Rules:
        """The well-formed parts of the rules of a policy file's parsed data."""
        return cls(
            _valid_list(BlockRule, data.get("block")),
            _valid_list(ThresholdRule, data.get("threshold")),
            _valid_list(DropRule, data.get("drop")),
            _valid_list(SensitiveRule, data.get("sensitive")),
            _valid(NoRegressionRule, data.get("no_regression")),
            _valid(LatencyBudget, data.get("latency")),
        )


def _semantic(
    policy: _Rules, file: str, collector: ProblemCollector, stages: tuple[str, ...]
) -> None:
    metrics: list[tuple[str, _Rule[ThresholdRule] | _Rule[DropRule]]]
    metrics = [(f"threshold[{i}].metric", r) for i, r in policy.threshold]
    metrics += [(f"drop[{i}].metric", r) for i, r in policy.drop]
    for field, measured in metrics:
        if not measured.ok("metric"):
            continue
        try:
            parse_measure(measured.rule.metric, file)
        except InputError as exc:
            for p in exc.problems:
                collector.add(file, None, field, p.expected, p.found)
    for i, block in policy.block:
        if block.ok("stage") and (block.rule.stage not in stages or block.rule.stage == "ok"):
            collector.add(
                file,
                None,
                f"block[{i}].stage",
                f"a diagnosis stage ({', '.join(s for s in stages if s != 'ok')})",
                repr(block.rule.stage),
            )
    slices = [(f"block[{i}].slice", r.rule.slice) for i, r in policy.block if r.ok("slice")]
    slices += [
        (f"threshold[{i}].slice", r.rule.slice) for i, r in policy.threshold if r.ok("slice")
    ]
    slices += [
        (f"sensitive[{i}].slice", r.rule.slice) for i, r in policy.sensitive if r.ok("slice")
    ]
    for field, value in slices:
        if not _SLICE.match(value):
            collector.add(
                file,
                None,
                field,
                "`all`, `tag:NAME` or `split:dev|regression|holdout`",
                repr(value),
            )
    for i, threshold in policy.threshold:
        rule = threshold.rule
        if not threshold.ok("min", "max"):
            pass  # a malformed bound is reported on its own
        elif rule.min is None and rule.max is None:
            collector.add(file, None, f"threshold[{i}]", "`min`, `max` or both", "neither")
        elif rule.min is not None and rule.max is not None and rule.min > rule.max:
            collector.add(
                file, None, f"threshold[{i}]", "min <= max", f"min {rule.min}, max {rule.max}"
            )
        for bound in ("min", "max"):
            if threshold.ok("metric", bound):
                field = f"threshold[{i}].{bound}"
                _in_range(file, field, rule.metric, getattr(rule, bound), collector)
    for i, drop in policy.drop:
        if drop.ok("max_drop", "significant") and (
            drop.rule.max_drop is None and not drop.rule.significant
        ):
            collector.add(
                file, None, f"drop[{i}]", "`max_drop`, `significant = true` or both", "neither"
            )
        if drop.ok("metric", "max_drop"):
            field = f"drop[{i}].max_drop"
            _in_range(file, field, drop.rule.metric, drop.rule.max_drop, collector, span=True)
    if policy.no_regression is not None:
        protected = policy.no_regression
        if protected.ok("splits", "tags") and not (protected.rule.splits or protected.rule.tags):
            # it would protect nothing and so pass whatever the run does
            expected, found = "a split or a tag to protect", "empty `splits` and `tags`"
            collector.add(file, None, "no_regression", expected, found)
        for j, split in enumerate(protected.rule.splits if protected.ok("splits") else []):
            if split not in ("dev", "regression", "holdout"):
                collector.add(
                    file,
                    None,
                    f"no_regression.splits[{j}]",
                    "dev, regression or holdout",
                    repr(split),
                )
    latency = policy.latency
    if (
        latency is not None
        and latency.ok("p50_ms", "p95_ms")
        and latency.rule.p50_ms is None
        and latency.rule.p95_ms is None
    ):
        collector.add(file, None, "latency", "`p50_ms`, `p95_ms` or both", "neither")


def _in_range(
    file: str,
    field: str,
    metric: str,
    value: float | None,
    collector: ProblemCollector,
    *,
    span: bool = False,
) -> None:
    """A bound (or, with `span`, an allowed drop) must lie in the metric's value range: a
    `min` above the highest value fails every run, a `max` below the lowest passes none, and
    a bound outside the range is most often a percentage written for a fraction."""
    spec = lookup(metric.strip().split("@")[0])
    if value is None or spec is None:
        return  # unknown metrics are reported on their own
    low, high = spec.value_range
    if span:
        low, high = 0.0, high - low
    if not low <= value <= high:
        what = "an allowed drop" if span else "a bound"
        collector.add(
            file, None, field, f"{what} from {low:g} to {high:g} ({spec.name} range)", f"{value:g}"
        )


def _no_rules(data: dict[str, Any], file: str, collector: ProblemCollector) -> None:
    """A policy whose rule sections are all absent or empty passes every run: refused."""
    # `[no_regression]` with its defaults is an empty table, and still a rule; `threshold = []`
    # holds none.
    if not any(s in data and data[s] != [] for s in RULE_SECTIONS):
        collector.add(
            file,
            None,
            "(policy)",
            "at least one rule (" + ", ".join(f"[{s}]" for s in RULE_SECTIONS) + ")",
            "an empty file" if not data else "no rules",
        )


def _parse(path: Path, text: str, file: str) -> dict[str, Any]:
    """A policy's sections: a `.json` file is JSON (as a versions file may be), any other TOML."""
    if file_suffix(path) != ".json":
        return parse_toml(text, file)
    if not text.strip():
        return {}  # refused as an empty policy, as an empty TOML file is
    data = parse_json(text, file)
    if not isinstance(data, dict):
        expected = "a JSON object holding the policy's sections"
        raise InputError([Problem(file, None, "(top level)", expected, found_text(data))])
    return data


def load_policy(path: PathArg) -> LoadedPolicy:
    """Read and check a policy file; raise `InputError` naming file, field, expected and found."""
    path = as_path(path)
    from ..diagnosis import stage_order

    file = str(path)
    collector = ProblemCollector()
    try:
        what = "a JSON document" if file_suffix(path) == ".json" else "a TOML document"
        raw = read_bytes(path, file, what=what)
    except InputError as exc:
        if exc.problems[0].found != "no such file":
            raise
        raise file_problem(file, "an existing policy file", "no such file") from None
    data = _parse(path, decode(raw, file), file)
    _no_rules(data, file, collector)
    policy: Policy | None = None
    try:
        policy = Policy.model_validate(data)
    except ValidationError as exc:
        collector.extend(pydantic_problems(exc, file, None))
    _semantic(_Rules.of(data), file, collector, stage_order())
    if policy is None or collector.problems:
        raise InputError(collector.problems)
    return LoadedPolicy(policy, file, hashlib.sha256(raw).hexdigest())
