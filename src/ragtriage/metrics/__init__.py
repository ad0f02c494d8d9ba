"""Metrics: one registry; per-question scores first, aggregates second."""

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from . import boundaries, coverage, evidence, ranking, refusal, stale, support
from ._aggregate import (
    Aggregate,
    aggregate,
    not_applicable_everywhere,
    not_applicable_line,
    value_text,
)
from ._registry import (
    REGISTRY,
    VALUE_RANGES,
    Layer,
    Measure,
    MetricSpec,
    PerQuestion,
    RankColumns,
    RankForm,
    Score,
    default_measures,
    lookup,
    measures,
    parse_measure,
    rank_measure_names,
    rank_specs,
    register,
)

if TYPE_CHECKING:
    from ._views import (
        CLAIM_STATES,
        COUNTED,
        FACT_STATES,
        FRESH,
        NO_EVIDENCE,
        ClaimView,
        EvidenceFound,
        FactView,
        Found,
        InvalidCitations,
        LabelsFound,
        QuestionView,
        build_view,
    )

# The views (and the loading and schemas they read) are imported on first use: the rank
# measures (`trec-eval`) need none of them.
_LAZY = {
    name: "._views"
    for name in (
        "CLAIM_STATES", "COUNTED", "FACT_STATES", "FRESH", "NO_EVIDENCE", "ClaimView",
        "EvidenceFound", "FactView", "Found", "InvalidCitations", "LabelsFound", "QuestionView",
        "build_view",
    )
}

__all__ = [
    "CLAIM_STATES",
    "COUNTED",
    "FACT_STATES",
    "FRESH",
    "NO_EVIDENCE",
    "REGISTRY",
    "VALUE_RANGES",
    "Aggregate",
    "ClaimView",
    "EvidenceFound",
    "FactView",
    "Found",
    "InvalidCitations",
    "LabelsFound",
    "Layer",
    "Measure",
    "MetricSpec",
    "PerQuestion",
    "QuestionView",
    "RankColumns",
    "RankForm",
    "Score",
    "aggregate",
    "boundaries",
    "build_view",
    "coverage",
    "default_measures",
    "evidence",
    "lookup",
    "measures",
    "not_applicable_everywhere",
    "not_applicable_line",
    "parse_measure",
    "rank_measure_names",
    "rank_specs",
    "ranking",
    "refusal",
    "register",
    "stale",
    "support",
    "value_text",
]


__getattr__ = lazy_names(__name__, _LAZY, globals())
