"""Metrics: one registry; per-question scores first, aggregates second."""

from . import coverage, evidence, refusal, stale, support
from ._aggregate import Aggregate, aggregate
from ._registry import (
    REGISTRY,
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
    "Aggregate",
    "ClaimView",
    "FactView",
    "Layer",
    "Measure",
    "MetricSpec",
    "QuestionView",
    "Score",
    "aggregate",
    "build_view",
    "coverage",
    "default_measures",
    "evidence",
    "measures",
    "parse_measure",
    "refusal",
    "register",
    "stale",
    "support",
]
