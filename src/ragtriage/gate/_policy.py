"""Reading the release policy file (TOML, or JSON when named `*.json`) into its model
(`_policy_format`), with every problem listed: the file's shape, then the meaning of every
well-formed field."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from pydantic import ValidationError

from ..errors import InputError, Problem, ProblemCollector, did_you_mean, found_text, refused_once
from ..fileio import decode, file_problem, parse_json, parse_toml, read_bytes
from ..loading import display_path, pydantic_problems
from ..metrics import REGISTRY, MetricSpec, lookup, parse_measure
from ..paths import PathArg, as_path, file_suffix
from ._policy_format import (
    LABEL_LAYERS,
    RULE_SECTIONS,
    BlockRule,
    DropRule,
    LatencyBudget,
    LoadedPolicy,
    NoRegressionRule,
    Policy,
    SensitiveRule,
    ThresholdRule,
    _PolicyModel,
)
from ._verdict import bound_text

_SLICE = re.compile(r"^(all|tag:.+|split:(dev|regression|holdout))$")

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
    partial: Mapping[str, tuple[tuple[int, Any], ...]]
    """For a list field in `bad` only through some of its elements: the elements that are
    well-formed, each with its index in the list."""

    def ok(self, *fields: str) -> bool:
        """Whether every one of `fields` is well-formed (a check reading them may run)."""
        return self.bad.isdisjoint(fields)

    def elements(self, name: str) -> tuple[tuple[int, Any], ...]:
        """The well-formed elements of list field `name`, each with its index: every one when
        the field is well-formed, the others when some elements are malformed (each is
        reported with its index on its own), none when the field itself is."""
        if self.ok(name):
            return tuple(enumerate(getattr(self.rule, name)))
        return self.partial.get(name, ())


def _valid(model: type[_M], value: object) -> _Rule[_M] | None:
    """The well-formed part of one rule, or None when it is not a table at all."""
    if not isinstance(value, dict):
        return None
    try:
        return _Rule(model.model_validate(value), frozenset(), {})
    except ValidationError as exc:
        locations = [e["loc"] for e in exc.errors() if e["loc"]]
    bad = frozenset(str(loc[0]) for loc in locations)
    # strict models coerce nothing, so a field that validated holds the value as written
    good = {k: v for k, v in value.items() if k in model.model_fields and k not in bad}
    # a list with a malformed element still has its other elements checked for meaning
    whole = {loc[0] for loc in locations if len(loc) == 1 or not isinstance(loc[1], int)}
    partial = {
        name: tuple((i, item) for i, item in enumerate(value[name]) if (name, i) not in locations)
        for name in bad - whole
        if isinstance(value.get(name), list)
    }
    return _Rule(cast(_M, model.model_construct(**good)), bad, partial)


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
    def refuse(field: str, expected: str, found: str) -> None:
        collector.add(file, None, field, expected, found)

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
                refuse(field, p.expected, p.found)
    for i, block in policy.block:
        if block.ok("stage") and (block.rule.stage not in stages or block.rule.stage == "ok"):
            known = [s for s in stages if s != "ok"]
            found = repr(block.rule.stage) + did_you_mean(block.rule.stage, known)
            refuse(f"block[{i}].stage", f"a diagnosis stage ({', '.join(known)})", found)
    sliced: dict[str, Sequence[tuple[int, _Rule[Any]]]]  # every rule with a `slice`
    sliced = {"block": policy.block, "threshold": policy.threshold, "sensitive": policy.sensitive}
    for section, rules in sliced.items():
        for i, r in rules:
            if r.ok("slice") and not _SLICE.match(r.rule.slice):
                expected = "`all`, `tag:NAME` or `split:dev|regression|holdout`"
                refuse(f"{section}[{i}].slice", expected, repr(r.rule.slice))
    for i, threshold in policy.threshold:
        rule = threshold.rule
        if not threshold.ok("min", "max"):
            pass  # a malformed bound is reported on its own
        elif rule.min is None and rule.max is None:
            refuse(f"threshold[{i}]", "`min`, `max` or both", "neither")
        elif rule.min is not None and rule.max is not None and rule.min > rule.max:
            refuse(f"threshold[{i}]", "min <= max", f"min {rule.min}, max {rule.max}")
        spec = _spec(rule.metric) if threshold.ok("metric", "max_judge_uncertain") else None
        if spec is not None and rule.max_judge_uncertain is not None and (
            spec.layer not in LABEL_LAYERS
        ):  # the rule's own limit would be read by nothing
            readers = ", ".join(sorted(n for n, m in REGISTRY.items() if m.layer in LABEL_LAYERS))
            expected = f"none on a measure that reads no review labels ({readers} read them)"
            found = f"{bound_text(rule.max_judge_uncertain)} on {spec.name}"
            refuse(f"threshold[{i}].max_judge_uncertain", expected, found)
        for bound in ("min", "max"):
            if threshold.ok("metric", bound):
                field = f"threshold[{i}].{bound}"
                _in_range(file, field, rule.metric, getattr(rule, bound), collector)
    for i, drop in policy.drop:
        if drop.ok("max_drop", "significant") and (
            drop.rule.max_drop is None and not drop.rule.significant
        ):
            refuse(f"drop[{i}]", "`max_drop`, `significant = true` or both", "neither")
        if drop.ok("alpha", "significant") and drop.rule.alpha is not None and (
            not drop.rule.significant
        ):  # the level of a test the rule does not ask for would be read by nothing
            expected = "no alpha unless `significant = true` (the level of its significance test)"
            found = f"{bound_text(drop.rule.alpha)} with significant = false"
            refuse(f"drop[{i}].alpha", expected, found)
        if drop.ok("metric", "max_drop"):
            field = f"drop[{i}].max_drop"
            _in_range(file, field, drop.rule.metric, drop.rule.max_drop, collector, span=True)
    if policy.no_regression is not None:
        protected = policy.no_regression
        if protected.ok("splits", "tags") and not (protected.rule.splits or protected.rule.tags):
            # it would protect nothing and so pass whatever the run does
            expected, found = "a split or a tag to protect", "empty `splits` and `tags`"
            refuse("no_regression", expected, found)
        for j, split in protected.elements("splits"):
            if split not in ("dev", "regression", "holdout"):
                refuse(f"no_regression.splits[{j}]", "dev, regression or holdout", repr(split))
    latency = policy.latency
    if (
        latency is not None
        and latency.ok("p50_ms", "p95_ms")
        and latency.rule.p50_ms is None
        and latency.rule.p95_ms is None
    ):
        refuse("latency", "`p50_ms`, `p95_ms` or both", "neither")


def _spec(metric: str) -> MetricSpec | None:
    """The registry's entry for a policy's measure name (`ndcg@10`), None when unknown."""
    return lookup(metric.strip().split("@")[0])


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
    spec = _spec(metric)
    if value is None or spec is None:
        return  # unknown metrics are reported on their own
    low, high = spec.value_range
    if span:
        low, high = 0.0, high - low
    if not low <= value <= high:
        what = "an allowed drop" if span else "a bound"
        expected = f"{what} from {low:g} to {high:g} ({spec.name} range)"
        collector.add(file, None, field, expected, bound_text(value))


def _no_rules(data: dict[str, Any], file: str, collector: ProblemCollector) -> None:
    """A policy whose rule sections are all absent or empty passes every run: refused."""
    # `[no_regression]` with its defaults is an empty table, and still a rule; `threshold = []`
    # holds none.
    if not any(s in data and data[s] != [] for s in RULE_SECTIONS):
        expected = "at least one rule (" + ", ".join(f"[{s}]" for s in RULE_SECTIONS) + ")"
        collector.add(file, None, "(policy)", expected, "an empty file" if not data else "no rules")


def _parse(path: Path, text: str, file: str, refused: list[Problem]) -> dict[str, Any]:
    """A policy's sections: a `.json` file is JSON (as a versions file may be), any other TOML
    (its numbers that are not finite added to `refused`)."""
    if file_suffix(path) != ".json":
        return parse_toml(text, file, refused)
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
    refused: list[Problem] = []
    data = _parse(path, decode(raw, file), file, refused)
    _no_rules(data, file, collector)
    policy: Policy | None = None
    try:
        policy = Policy.model_validate(data)
    except ValidationError as exc:
        collector.extend(pydantic_problems(exc, file, None))
    _semantic(_Rules.of(data), file, collector, stage_order())
    if policy is None or collector.problems or refused:
        raise InputError(refused_once(refused, collector.problems))
    return LoadedPolicy(policy, display_path(path), hashlib.sha256(raw).hexdigest())
