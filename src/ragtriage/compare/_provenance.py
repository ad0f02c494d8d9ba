"""Provenance: which recorded conditions differ between runs, and which runs are repeats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..evaluation import RunEvaluation
from ..schemas import Component

CONDITIONS: tuple[str, ...] = (
    "snapshot_id",
    "evalset_id",
    "retriever",
    "k",
    "filters",
    "reranker",
    "generator",
    "prompt_version",
    "seed",
)
"""The recorded conditions compared between runs, in pipeline order (seed last)."""

CONFIG_CONDITIONS: tuple[str, ...] = tuple(c for c in CONDITIONS if c != "seed")
"""Conditions that define a configuration: runs equal on these are repeats of one another."""


def _component(component: Component | None) -> str | None:
    if component is None:
        return None
    text = component.name + (f" {component.version}" if component.version else "")
    if component.settings:
        settings = ", ".join(f"{k}={v!r}" for k, v in sorted(component.settings.items()))
        text += f" ({settings})"
    return text


def run_conditions(run: RunEvaluation) -> dict[str, str | None]:
    """A run's recorded conditions as display text (None when not recorded).

    `k` is the cut-off actually used for scoring, which is the recorded one unless the
    user overrode it on the command line.
    """
    prov = run.provenance
    filters = ", ".join(f"{k}={v!r}" for k, v in sorted(prov.filters.items())) or None
    return {
        "snapshot_id": prov.snapshot_id,
        "evalset_id": prov.evalset_id,
        "retriever": _component(prov.retriever),
        "k": None if run.k is None else str(run.k),
        "filters": filters,
        "reranker": _component(prov.reranker),
        "generator": _component(prov.generator),
        "prompt_version": prov.prompt_version,
        "seed": None if prov.seed is None else str(prov.seed),
    }


def config_key(run: RunEvaluation) -> tuple[str | None, ...]:
    """Everything recorded except the seed: equal keys mean repeated runs of one configuration."""
    conditions = run_conditions(run)
    return tuple(conditions[c] for c in CONFIG_CONDITIONS)


def group_conditions(runs: Sequence[RunEvaluation]) -> dict[str, str | None]:
    """The conditions of a group of repeats: shared ones, and every seed listed."""
    conditions = run_conditions(runs[0])
    seeds = [run_conditions(run)["seed"] for run in runs]
    if len(runs) > 1:
        conditions["seed"] = ", ".join(s if s is not None else "-" for s in seeds)
    return conditions


@dataclass(frozen=True)
class ConditionDiff:
    """One recorded condition that differs between base and candidate."""

    condition: str
    """The condition's name (one of `CONDITIONS`)."""
    base: str | None
    """Its value in the base (None: not recorded)."""
    candidate: str | None
    """Its value in the candidate (None: not recorded)."""


@dataclass(frozen=True)
class ProvenanceDiff:
    """The conditions that differ between two runs (or groups of repeats)."""

    differences: tuple[ConditionDiff, ...]
    """Differing conditions, in `CONDITIONS` order. Not recorded vs recorded counts as differing."""

    @property
    def changed(self) -> tuple[str, ...]:
        """Names of the differing conditions other than the seed."""
        return tuple(d.condition for d in self.differences if d.condition != "seed")

    @property
    def confounded(self) -> bool:
        """More than one condition besides the seed changed: effects cannot be attributed."""
        return len(self.changed) > 1

    def warning(self) -> str | None:
        """The confounded-comparison warning, or None."""
        if not self.confounded:
            return None
        return (
            f"confounded comparison: {len(self.changed)} conditions differ "
            f"({', '.join(self.changed)}); a difference cannot be attributed to one of them"
        )


def diff_conditions(
    base: Mapping[str, str | None], candidate: Mapping[str, str | None]
) -> ProvenanceDiff:
    """Compare two condition maps (from `run_conditions` or `group_conditions`)."""
    return ProvenanceDiff(
        tuple(
            ConditionDiff(c, base.get(c), candidate.get(c))
            for c in CONDITIONS
            if base.get(c) != candidate.get(c)
        )
    )


def group_repeats(runs: Sequence[RunEvaluation]) -> tuple[tuple[RunEvaluation, ...], ...]:
    """Group runs whose recorded conditions differ only in the seed.

    Only runs that record a seed are grouped.
    Grouping only happens when it leaves at least two groups to compare and some group
    has more than one run; otherwise every run stands alone (comparing seeds of one
    configuration with each other is then a plain run-to-run comparison). The first group
    is the first run's (the baseline's); the others follow sorted by their runs' names, and
    a group's runs are sorted by name, so that the labels, the member order and the
    resampling streams keyed by the labels do not depend on the order the runs are given in.
    """
    groups: dict[tuple[str | None, ...], list[RunEvaluation]] = {}
    for position, run in enumerate(runs):
        # Without a recorded seed two runs are not known to be repeats: keep them apart.
        key = config_key(run) if run.provenance.seed is not None else (f"#{position}",)
        groups.setdefault(key, []).append(run)
    if len(groups) < 2 or len(groups) == len(runs):
        return tuple((run,) for run in runs)
    base, *others = (tuple(sorted(g, key=lambda run: run.name)) for g in groups.values())
    return (base, *sorted(others, key=lambda g: [run.name for run in g]))
