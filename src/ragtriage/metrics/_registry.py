"""The one registry of metrics: definition (name, layer, direction, rules) apart from computation.

CLI flags, JSON keys, gate files, docs and the registry-driven tests all read this registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..errors import InputError, Problem
from ..validation import parse_cutoff
from ._views import QuestionView

Layer = Literal[
    "retrieval", "support", "citation", "coverage", "refusal", "clarification", "stale",
    "handoff", "permission", "injection", "sensitive",
]
Averaging = Literal["macro", "micro"]
ValueKind = Literal["ratio", "boolean"]

VALUE_RANGES: dict[ValueKind, tuple[float, float]] = {"ratio": (0.0, 1.0), "boolean": (0.0, 1.0)}
"""The closed interval every value of a kind lies in (per question and aggregated): what a
gate bound or an allowed drop is checked against. A new kind needs its range here."""


@dataclass(frozen=True)
class Score:
    """A per-question value as a fraction: numerator / denominator (denominator > 0)."""

    numerator: float
    """What counted."""
    denominator: float
    """Out of how many."""

    @property
    def value(self) -> float:
        """numerator / denominator."""
        return self.numerator / self.denominator


Compute = Callable[[QuestionView, Mapping[str, int]], Score | None]
"""Per-question computation; `None` means not applicable to this question."""


@dataclass(frozen=True)
class MetricSpec:
    """What a metric is: everything except how to compute it lives here as data."""

    name: str
    """Canonical name, also the JSON key (`evidence_recall`)."""
    layer: Layer
    """Which failure layer it measures."""
    direction: Literal["higher", "lower"]
    """Whether higher or lower values are better."""
    averaging: Averaging
    """`macro`: mean of per-question values; `micro`: pooled numerators / pooled denominators."""
    kind: ValueKind
    """`ratio` (per-question fraction) or `boolean` (per-question true/false)."""
    summary: str
    """One line: what it measures."""
    formula: str
    """The per-question formula."""
    denominator: str
    """What the aggregate divides by."""
    not_applicable: str
    """When a question has no value for it."""
    requires: tuple[str, ...]
    """Input fields it reads."""
    compute: Compute = field(repr=False, compare=False)
    """The per-question computation."""
    params: tuple[str, ...] = ()
    """Parameter names (e.g. `k`), written `name@k` in the canonical name."""
    in_default_set: bool = True
    """Whether `evaluate` reports it when no metric list is given."""
    cannot_judge: Callable[[QuestionView], int] | None = field(
        default=None, repr=False, compare=False
    )
    """Per question, the items labelled `cannot_judge` that this measure leaves out (None for
    a measure that reads no such label); aggregates report their sum."""

    @property
    def value_range(self) -> tuple[float, float]:
        """(lowest, highest) value the metric can take, from `VALUE_RANGES`."""
        return VALUE_RANGES[self.kind]


@dataclass(frozen=True)
class Measure:
    """A metric with its parameters bound, e.g. `ndcg@10`."""

    spec: MetricSpec
    """The metric."""
    params: tuple[tuple[str, int], ...] = ()
    """Bound parameter values, in the spec's order."""

    @property
    def name(self) -> str:
        """Canonical, parseable name."""
        if not self.params:
            return self.spec.name
        return self.spec.name + "".join(f"@{value}" for _, value in self.params)

    def compute(self, view: QuestionView) -> Score | None:
        """Per-question value, or None when not applicable."""
        return self.spec.compute(view, dict(self.params))

    def cannot_judge(self, view: QuestionView) -> int | None:
        """Items labelled `cannot_judge` left out of this question's value (None: no rule)."""
        count = self.spec.cannot_judge
        return None if count is None else count(view)


REGISTRY: dict[str, MetricSpec] = {}
"""Every registered metric by canonical name."""


def register(spec: MetricSpec) -> MetricSpec:
    """Add a metric to the registry (a second spec under one name is a programming error)."""
    if spec.name in REGISTRY:
        raise ValueError(f"metric {spec.name!r} registered twice")
    REGISTRY[spec.name] = spec
    return spec


def parse_measure(text: str, source: str = "<command line>") -> Measure:
    """Parse `name` or `name@k`; unknown names and bad parameters raise `InputError`."""
    name, *values = text.strip().split("@")
    spec = REGISTRY.get(name)
    if spec is None:
        known = ", ".join(sorted(REGISTRY))
        raise InputError([Problem(source, None, "metric", f"one of {known}", repr(text))])
    if len(values) != len(spec.params):
        shape = spec.name + "".join(f"@{p}" for p in spec.params)
        raise InputError([Problem(source, None, "metric", f"the form {shape}", repr(text))])
    bound = []
    for param, raw in zip(spec.params, values, strict=True):
        bound.append((param, parse_cutoff(raw, source, f"metric {spec.name} parameter {param}")))
    return Measure(spec, tuple(bound))


LAYER_ORDER: tuple[Layer, ...] = (
    "retrieval",
    "coverage",
    "support",
    "citation",
    "refusal",
    "clarification",
    "stale",
    "handoff",
    "permission",
    "injection",
    "sensitive",
)
"""The order layers are reported in: the pipeline's, then the side checks."""


def default_measures() -> tuple[Measure, ...]:
    """The measures `evaluate` reports by default (parameter-free metrics of the default set)."""
    specs = [s for s in REGISTRY.values() if s.in_default_set and not s.params]
    specs.sort(
        key=lambda s: LAYER_ORDER.index(s.layer) if s.layer in LAYER_ORDER else len(LAYER_ORDER)
    )
    return tuple(Measure(spec) for spec in specs)


def measures(names: Iterable[str] | None) -> tuple[Measure, ...]:
    """Parse a list of measure names, or give the default set for `None`."""
    if names is None:
        return default_measures()
    return tuple(parse_measure(name) for name in names)
