"""Metrics: one registry; per-question scores first, aggregates second."""

from . import boundaries, coverage, evidence, ranking, refusal, stale, support
from ._aggregate import Aggregate, aggregate
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
    "QuestionView",
    "Score",
    "aggregate",
    "boundaries",
    "build_view",
    "coverage",
    "default_measures",
    "evidence",
    "measures",
    "parse_measure",
    "ranking",
    "refusal",
    "register",
    "stale",
    "support",
]
