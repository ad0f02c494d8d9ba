"""The one registry of metrics: definition (name, layer, direction, rules) apart from computation.

CLI flags, JSON keys, gate files, docs and the registry-driven tests all read this registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, Protocol, get_args

import numpy as np

from ..errors import InputError, Problem, did_you_mean, each_or_refused
from ..validation import CUTOFF_EXPECTED, parse_cutoff

Layer = Literal[
    "retrieval", "coverage", "support", "citation", "refusal", "clarification", "stale",
    "handoff", "permission", "injection", "sensitive",
]
LAYER_ORDER: tuple[Layer, ...] = get_args(Layer)
"""The order layers are reported in: the pipeline's, then the side checks."""
Averaging = Literal["macro", "micro"]
ValueKind = Literal["ratio", "boolean"]

VALUE_RANGES: dict[ValueKind, tuple[float, float]] = {"ratio": (0.0, 1.0), "boolean": (0.0, 1.0)}
"""The closed interval every value of a kind lies in (per question and aggregated): what a
gate bound or an allowed drop is checked against. A new kind needs its range here."""

STAGE_WHERE = {
    "candidates": "among the candidates",
    "context": "in the final context",
    "cited": "cited by the answer",
    "support": "used as support for a claim",
}
"""Where an item stands at each stage of a question's pipeline, as the stale and permission
metrics' definitions word it."""


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


@dataclass(frozen=True)
class PerQuestion:
    """One measure over many questions: numerator and denominator per question, as arrays."""

    numerator: np.ndarray
    """float64 per question."""
    denominator: np.ndarray
    """float64 per question; 0 marks not applicable."""
    cannot_judge: np.ndarray | None = None
    """int64 per question: items labelled `cannot_judge` left out (measures that read such
    labels; None for the others)."""
    uncertain: np.ndarray | None = None
    """int64 per question: items left out for an uncertain label, `cannot_judge` or none at
    all (what the gate's `max_judge_uncertain` reads; None as for `cannot_judge`)."""

    @property
    def applicable(self) -> np.ndarray:
        """Boolean mask of questions with a value."""
        mask: np.ndarray = self.denominator > 0
        return mask

    def value_array(self) -> np.ndarray:
        """Per-question values as float64, NaN where not applicable (denominator 0)."""
        numerator = np.asarray(self.numerator, dtype=np.float64)
        denominator = np.asarray(self.denominator, dtype=np.float64)
        out = np.full(denominator.shape, np.nan)
        # The same IEEE division as `num / den` on Python floats, bit for bit.
        np.divide(numerator, denominator, out=out, where=denominator != 0)
        return out

    def values(self) -> list[float | None]:
        """Per-question values, None where not applicable."""
        applies = (np.asarray(self.denominator) != 0).tolist()
        return [
            value if keep else None
            for value, keep in zip(self.value_array().tolist(), applies, strict=True)
        ]


class RankColumns(Protocol):
    """Many rankings with graded relevance, one row per question (`columnar.RankArrays`)."""

    @property
    def grades(self) -> np.ndarray:
        """(questions, depth): grade of the item at each rank, 0 when not relevant or past
        the ranking's end."""

    @property
    def n_relevant(self) -> np.ndarray:
        """(questions,): relevant items (required groups) of the question."""

    @property
    def ideal(self) -> np.ndarray:
        """(questions, <= depth): the relevant grades, highest first."""

    def found(self, k: int) -> np.ndarray:
        """(questions,): relevant items (required groups) found within the top k (an item
        satisfying two required groups finds both)."""


@dataclass(frozen=True)
class RankForm:
    """A rank measure over many rankings at once: how `trec-eval` and the engine compute it
    (the metric's only computation in the package)."""

    name: str
    """The name `trec-eval` reports it under (the metric's name or one of its aliases)."""
    formula: str
    """The per-question formula in TREC terms (documents and qrels)."""
    compute: Callable[[RankColumns, int], PerQuestion] = field(repr=False, compare=False)
    """Numerator and denominator of every question at cut-off k (denominator 0: no relevant
    item, not applicable)."""


@dataclass(frozen=True)
class MetricSpec:
    """What a metric is, as data: the engine (`columnar`) computes every registered metric over
    columns, and `tests/oracle/measures.py` holds the plain per-question oracle it is checked
    against."""

    name: str
    """Canonical name, also the JSON key (`evidence_recall`)."""
    layer: Layer
    """Which failure layer it measures."""
    direction: Literal["higher", "lower"]
    """Whether higher or lower values are better."""
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
    averaging: Averaging = "macro"
    """`macro`: mean of per-question values; `micro`: pooled numerators / pooled denominators."""
    params: tuple[str, ...] = ()
    """Parameter names (e.g. `k`), written `name@k` in the canonical name."""
    in_default_set: bool = True
    """Whether `evaluate` reports it when no metric list is given."""
    counts_cannot_judge: bool = False
    """Whether it reads labels that may say `cannot_judge`: the engine then counts, per
    question, the items so labelled that it leaves out, and aggregates report their sum."""
    aliases: tuple[str, ...] = ()
    """Other names accepted wherever a measure is named (trec_eval and ranx spellings)."""
    rank: RankForm | None = None
    """Its form over many rankings at once, for a measure of one ranking against graded
    relevance (what `trec-eval` accepts); None for the others."""

    @property
    def value_range(self) -> tuple[float, float]:
        """(lowest, highest) value the metric can take, from `VALUE_RANGES`."""
        return VALUE_RANGES[self.kind]

    def spelled(self, name: str | None = None) -> str:
        """`name` (by default the canonical name) with the metric's parameters: `ndcg@k`."""
        return (self.name if name is None else name) + "".join(f"@{p}" for p in self.params)


@dataclass(frozen=True)
class Measure:
    """A metric with its parameters bound, e.g. `ndcg@10`."""

    spec: MetricSpec
    """The metric."""
    params: tuple[tuple[str, int], ...] = ()
    """Bound parameter values, in the spec's order."""

    @cached_property  # read for every question's every value: made once per measure
    def name(self) -> str:
        """Canonical, parseable name."""
        if not self.params:
            return self.spec.name
        return self.spec.name + "".join(f"@{value}" for _, value in self.params)


REGISTRY: dict[str, MetricSpec] = {}
"""Every registered metric by canonical name."""

_NAMES: dict[str, MetricSpec] = {}
"""Every accepted name, lower case (canonical names and aliases), and its metric."""


def register(spec: MetricSpec) -> MetricSpec:
    """Add a metric to the registry (a name or alias taken twice is a programming error)."""
    names = [n.lower() for n in (spec.name, *spec.aliases)]
    taken = [n for n in names if n in _NAMES] or ([spec.name] if spec.name in REGISTRY else [])
    if taken or len(set(names)) < len(names):
        raise ValueError(f"metric {spec.name!r}: name {(taken or names)[0]!r} registered twice")
    if spec.rank is not None and spec.rank.name.lower() not in names:
        raise ValueError(f"metric {spec.name!r}: rank name {spec.rank.name!r} is no name of it")
    REGISTRY[spec.name] = spec
    _NAMES.update((n, spec) for n in names)
    return spec


def lookup(name: str) -> MetricSpec | None:
    """The metric named `name` (its canonical name or an alias, in any case), or None."""
    return REGISTRY.get(name) or _NAMES.get(name.lower())


def rank_specs() -> tuple[MetricSpec, ...]:
    """The metrics with a rank form (what `trec-eval` accepts), in registration order."""
    return tuple(s for s in REGISTRY.values() if s.rank is not None)


def rank_measure_names() -> str:
    """The measures `trec-eval` accepts, by the name it reports, with their other names:
    `recall@k (recall_candidates@k), precision@k (P@k), ...`."""
    out = []
    for spec in rank_specs():
        if spec.rank is None:
            continue
        others = [f"{n}@k" for n in (spec.name, *spec.aliases) if n != spec.rank.name]
        out.append(f"{spec.rank.name}@k" + (f" ({', '.join(others)})" if others else ""))
    return ", ".join(out)


def parse_measure(text: str, source: str = "<command line>", *, rank: bool = False) -> Measure:
    """Parse `name` or `name@k` (a canonical name or an alias, in any case); unknown names
    and bad parameters raise `InputError`.

    `rank=True` (trec-eval): only metrics with a rank form, each with its cut-off, and the
    messages name them by their rank names (`recall@k`, `ap@k`).
    """
    if rank:
        return _parse_rank(text, source)
    name, *values = text.strip().split("@")
    spec = lookup(name)
    if spec is None:
        known = ", ".join(sorted(REGISTRY))
        found = repr(text) + did_you_mean(name, REGISTRY.keys())
        raise InputError([Problem(source, None, "metric", f"one of {known}", found)])
    if len(values) != len(spec.params):
        expected = f"the form {spec.spelled()}"
        raise InputError([Problem(source, None, "metric", expected, repr(text))])
    bound = []
    for param, raw in zip(spec.params, values, strict=True):
        bound.append((param, parse_cutoff(raw, source, f"metric {spec.name} parameter {param}")))
    return Measure(spec, tuple(bound))


def _parse_rank(text: str, source: str) -> Measure:
    name, sep, raw = text.strip().partition("@")
    spec = lookup(name)
    if spec is None or spec.rank is None:
        known = ", ".join(f"{s.rank.name}@k" for s in rank_specs() if s.rank is not None)
        raise InputError([Problem(source, None, "metric", f"one of {known}", repr(text))])
    field = f"metric {spec.rank.name} cut-off"
    if not sep:
        raise InputError([Problem(source, None, field, f"@k, k {CUTOFF_EXPECTED}", repr(text))])
    return Measure(spec, (("k", parse_cutoff(raw, source, field)),))


def layer_rank(layer: Layer) -> int:
    """Where a layer stands in `LAYER_ORDER` (a layer not in it: after them all)."""
    return LAYER_ORDER.index(layer) if layer in LAYER_ORDER else len(LAYER_ORDER)


def default_measures() -> tuple[Measure, ...]:
    """The measures `evaluate` reports by default (parameter-free metrics of the default set)."""
    specs = [s for s in REGISTRY.values() if s.in_default_set and not s.params]
    specs.sort(key=lambda s: layer_rank(s.layer))
    return tuple(Measure(spec) for spec in specs)


def measures(names: Iterable[str] | None) -> tuple[Measure, ...]:
    """Parse a list of measure names, or give the default set for `None`. A single `str` is
    one name (not a list of its characters)."""
    if names is None:
        return default_measures()
    if isinstance(names, str):
        names = (names,)
    return parse_measures(names)


def parse_measures(
    texts: Iterable[str], source: str = "<command line>", *, rank: bool = False
) -> tuple[Measure, ...]:
    """`parse_measure` of each text, in order; `InputError` names every bad one at once."""
    return tuple(each_or_refused(lambda text: parse_measure(text, source, rank=rank), texts))
