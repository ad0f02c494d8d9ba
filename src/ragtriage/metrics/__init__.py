"""Metrics: one registry; per-question scores first, aggregates second."""

from . import boundaries, coverage, evidence, ranking, refusal, stale, support
from ._aggregate import (
    Aggregate,
    PerQuestion,
    aggregate,
    not_applicable_everywhere,
    not_applicable_line,
)
from ._registry import (
    REGISTRY,
    VALUE_RANGES,
    Layer,
    Measure,
    MetricSpec,
    Score,
    default_measures,
    measures,
    parse_measure,
    register,
)
from ._views import ClaimView, FactView, QuestionView, build_view

__all__ = [
    "REGISTRY",
    "VALUE_RANGES",
    "Aggregate",
    "ClaimView",
    "FactView",
    "Layer",
    "Measure",
    "MetricSpec",
    "PerQuestion",
    "QuestionView",
    "Score",
    "aggregate",
    "boundaries",
    "build_view",
    "coverage",
    "default_measures",
    "evidence",
    "measures",
    "not_applicable_everywhere",
    "not_applicable_line",
    "parse_measure",
    "ranking",
    "refusal",
    "register",
    "stale",
    "support",
]
