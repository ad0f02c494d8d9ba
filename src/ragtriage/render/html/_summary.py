"""The server-rendered parts of the report: provenance and the layer table, as plain values.

The template escapes every one of these strings (Jinja2 autoescape).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...compare import PAIRING, Comparison, ci_text, paired_value
from ...evaluation import Evaluation
from ...metrics import Aggregate, fraction_text, value_text
from ...schemas import Component
from .._text import label_mark

LAYER_TITLES: dict[str, str] = {
    "retrieval": "Evidence recall (retrieval)",
    "coverage": "Reference-fact coverage",
    "support": "Answer support",
    "citation": "Citations",
    "refusal": "Refusal",
    "clarification": "Clarification",
    "stale": "Stale evidence",
    "handoff": "Hand-off to a person",
    "permission": "Permission leaks",
    "injection": "Instructions in documents",
    "sensitive": "Sensitive content",
}
"""Headings of the layer table, in report order."""


@dataclass(frozen=True)
class Cell:
    """One run's aggregate as the page shows it."""

    value: str
    """`0.75`, or `n/a` for an empty denominator."""
    fraction: str
    """`3/4`: numerator / denominator."""
    not_applicable: int
    """Questions the measure did not apply to."""
    cannot_judge: str = ""
    """`· 2 cannot judge` when items labelled so were left out, else empty."""


@dataclass(frozen=True)
class LayerRow:
    """One measure's row of the layer table."""

    metric: str
    """Canonical measure name."""
    summary: str
    """What it measures."""
    averaging: str
    """`macro` or `micro`."""
    direction: str
    """`higher` or `lower` is better."""
    cells: tuple[Cell, ...]
    """One per run."""


@dataclass(frozen=True)
class Layer:
    """A layer heading with its measures."""

    title: str
    """Heading."""
    rows: tuple[LayerRow, ...]
    """Measures of the layer."""


@dataclass(frozen=True)
class RunInfo:
    """One run's provenance line."""

    name: str
    """Run name."""
    k: str
    """Cut-off, or `-`."""
    evidence_level: str
    """How evidence was matched."""
    conditions: tuple[tuple[str, str], ...]
    """Recorded conditions (retriever, reranker, generator, prompt, seed, filters)."""


def cell(agg: Aggregate, self_labelled: bool = False, mark: str = "") -> Cell:
    """Format one aggregate (marked when computed from the run generator's own labels, and
    with `mark`, e.g. ` · judge-labelled, uncalibrated`, from `render.label_mark`)."""
    value = value_text(agg.value, 2)
    value += " · SELF-LABELLED" if self_labelled else ""
    value += mark
    return Cell(
        value,
        fraction_text(agg),
        agg.not_applicable,
        f"· {agg.cannot_judge} cannot judge" if agg.cannot_judge else "",
    )


def layers(evaluation: Evaluation) -> tuple[Layer, ...]:
    """The evaluation's measures grouped by layer, in report order (a layer without a title
    last, as "Other")."""
    groups = [
        (title, [m for m in evaluation.measures if m.spec.layer == layer])
        for layer, title in LAYER_TITLES.items()
    ]
    groups.append(("Other", [m for m in evaluation.measures if m.spec.layer not in LAYER_TITLES]))
    return tuple(
        Layer(
            title,
            tuple(
                LayerRow(
                    m.name,
                    m.spec.summary,
                    m.spec.averaging,
                    m.spec.direction,
                    tuple(
                        cell(
                            run.summary[m.name],
                            m.name in run.self_labelled,
                            label_mark(run.label_sources.get(m.name)),
                        )
                        for run in evaluation.runs
                    ),
                )
                for m in measures
            ),
        )
        for title, measures in groups
        if measures
    )


def _component(label: str, comp: Component | None) -> tuple[str, str] | None:
    if comp is None:
        return None
    text = comp.name + (f" {comp.version}" if comp.version else "")
    if comp.settings:
        text += " (" + ", ".join(f"{k}={comp.settings[k]}" for k in sorted(comp.settings)) + ")"
    return (label, text)


def run_infos(evaluation: Evaluation) -> tuple[RunInfo, ...]:
    """Each run's provenance as label/value pairs."""
    out = []
    for run in evaluation.runs:
        p = run.provenance
        pairs = [
            _component("retriever", p.retriever),
            _component("reranker", p.reranker),
            _component("generator", p.generator),
            ("prompt", p.prompt_version) if p.prompt_version else None,
            ("seed", str(p.seed)) if p.seed is not None else None,
            ("filters", ", ".join(f"{k}={p.filters[k]}" for k in sorted(p.filters)))
            if p.filters
            else None,
            ("snapshot", p.snapshot_id) if p.snapshot_id else None,
        ]
        out.append(
            RunInfo(
                run.name,
                f"not used ({run.k_unused})"
                if run.k_unused is not None
                else ("-" if run.k is None else str(run.k)),
                run.evidence_level,
                tuple(pair for pair in pairs if pair is not None),
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class MetricDelta:
    """One metric's row of a pair comparison, formatted."""

    metric: str
    """Measure name."""
    base: str
    """Base value."""
    candidate: str
    """Candidate value."""
    difference: str
    """candidate - base."""
    interval: str
    """Bootstrap confidence interval of the difference."""
    test: str
    """Paired test and p-value."""
    wins_ties_losses: str
    """Questions better / equal / worse in the candidate."""


@dataclass(frozen=True)
class PairView:
    """One base-candidate pair as the page shows it."""

    base: str
    """Base group label."""
    candidate: str
    """Candidate group label."""
    differences: tuple[tuple[str, str, str], ...]
    """Recorded conditions that differ: (condition, base, candidate)."""
    confounded: bool
    """True when more than one condition differs."""
    metrics: tuple[MetricDelta, ...]
    """Metric rows."""


@dataclass(frozen=True)
class ComparisonView:
    """The comparison section's server-rendered part."""

    method: str
    """How intervals and tests were computed."""
    warnings: tuple[str, ...]
    """Warnings of the comparison (confounding, different snapshots or question sets)."""
    pairs: tuple[PairView, ...]
    """One per candidate configuration."""


def comparison_view(comparison: Comparison | None) -> ComparisonView | None:
    """Format a comparison for the template (None stays None)."""
    if comparison is None:
        return None
    pairs = []
    for pair in comparison.pairs:
        metrics = tuple(
            MetricDelta(
                m.metric,
                paired_value(m.base, m.base_all),
                paired_value(m.candidate, m.candidate_all),
                value_text(m.difference, signed=True),
                ci_text(m.ci),
                "n/a" if m.test is None else f"{m.test.name} p={m.test.p_value:.3g}",
                f"{m.wins}/{m.ties}/{m.losses}",
            )
            for m in pair.metrics
        )
        pairs.append(
            PairView(
                pair.base.label,
                pair.candidate.label,
                tuple(
                    (d.condition, d.base or "-", d.candidate or "-")
                    for d in pair.provenance.differences
                ),
                pair.provenance.confounded,
                metrics,
            )
        )
    method = (
        f"{comparison.level:.0%} paired bootstrap intervals ({comparison.resamples} resamples), "
        f"sign-flip permutation test ({comparison.permutations} resamples) or exact McNemar "
        f"for yes/no measures; seed {comparison.seed}; {PAIRING}"
    )
    return ComparisonView(method, tuple(comparison.warnings), tuple(pairs))
