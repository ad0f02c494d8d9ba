"""A comparison as JSON: the contract other tools read (`compare --format json`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..loading import report_head
from ._comparison import (
    STATUS_ORDER,
    Comparison,
    PairComparison,
    QuestionChange,
    RunGroup,
)
from ._stats import exact_up_to

PAIRING = (
    "only questions where both sides have a value are compared; (all X) after a base or "
    "candidate value gives X, that run's value over every question where it has one (what "
    "evaluate reports), when it differs because some questions are unpaired"
)
"""What the base and candidate columns hold, in words (every format says it)."""


def methods(comparison: Comparison) -> dict[str, str]:
    """The statistical methods in words, with seed and resample counts."""
    return {
        "bootstrap": (
            f"paired expanded-percentile bootstrap over questions, {comparison.resamples} "
            f"resamples, {comparison.level:.0%} level, seed {comparison.seed}; with repeated "
            "runs, repeats are resampled within each resampled question"
        ),
        "continuous_test": (
            "paired permutation test (sign flip of per-question differences; for micro "
            "averages, base and candidate swapped per question): exact up to "
            f"{exact_up_to(comparison.permutations)} differing questions, else Monte Carlo "
            f"with {comparison.permutations} resamples, seed {comparison.seed}; repeats "
            "averaged per question first"
        ),
        "binary_test": "exact McNemar test (two-sided binomial on the discordant pairs)",
        "pairing": PAIRING,
    }


def _fields(value: Any, key: str) -> dict[str, Any]:
    """A dataclass's fields under their own names (an interval's and a test's too), without `key`,
    the field the enclosing mapping is keyed by."""
    fields = dataclasses.asdict(value)
    del fields[key]
    return fields


def _question_json(q: QuestionChange) -> dict[str, Any]:
    return {
        "id": q.question_id,
        "status": q.status,
        "tags": list(q.tags),
        "split": q.split,
        "base_stage": q.base_stage,
        "candidate_stage": q.candidate_stage,
        "stage_change": q.stage_change,
        "layers": dict(sorted(q.layers.items())),
        "metrics": {
            ch.metric: {"base": ch.base, "candidate": ch.candidate, "status": ch.status}
            for ch in q.metrics
        },
    }


def _group_json(g: RunGroup) -> dict[str, Any]:
    return {
        "label": g.label,
        "runs": list(g.runs),
        "conditions": dict(g.conditions),
        "repeats": {r.metric: _fields(r, "metric") for r in g.repeats},
        "flaky": [
            {"id": f.question_id, "outcomes": list(f.outcomes), "stages": list(f.stages)}
            for f in g.flaky
        ],
    }


def _pair_json(p: PairComparison) -> dict[str, Any]:
    return {
        "base": p.base.label,
        "candidate": p.candidate.label,
        "provenance": {
            "differences": [dataclasses.asdict(d) for d in p.provenance.differences],
            "confounded": p.provenance.confounded,
        },
        "counts": {status: p.count(status) for status in STATUS_ORDER},
        "no_result": {
            "base": list(p.base_no_result),
            "candidate": list(p.candidate_no_result),
        },
        "metrics": {m.metric: _fields(m, "metric") for m in p.metrics},
        "questions": [_question_json(q) for q in p.questions],
    }


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The whole comparison as plain data (dump with `render.dumps` for stable text)."""
    return {
        **report_head(comparison.tool_version, comparison.sources),
        "kind": "comparison",
        "settings": {
            "seed": comparison.seed,
            "resamples": comparison.resamples,
            "permutations": comparison.permutations,
            "level": comparison.level,
            "methods": methods(comparison),
        },
        "questions": comparison.questions,
        "selection": comparison.selection,
        "warnings": list(comparison.warnings),
        "groups": [_group_json(g) for g in comparison.groups],
        "comparisons": [_pair_json(p) for p in comparison.pairs],
    }
