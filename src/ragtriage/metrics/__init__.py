"""Metrics: one registry; per-question scores first, aggregates second."""

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from . import (
    boundaries as boundaries,
    coverage as coverage,
    evidence as evidence,
    ranking as ranking,
    refusal as refusal,
    stale as stale,
    support as support,
)
from ._aggregate import (
    Aggregate as Aggregate,
    aggregate as aggregate,
    exact_sum as exact_sum,
    fraction_text as fraction_text,
    not_applicable_everywhere as not_applicable_everywhere,
    not_applicable_line as not_applicable_line,
    value_text as value_text,
)
from ._registry import (
    REGISTRY as REGISTRY,
    VALUE_RANGES as VALUE_RANGES,
    Layer as Layer,
    Measure as Measure,
    MetricSpec as MetricSpec,
    PerQuestion as PerQuestion,
    RankColumns as RankColumns,
    RankForm as RankForm,
    Score as Score,
    default_measures as default_measures,
    lookup as lookup,
    measures as measures,
    parse_measure as parse_measure,
    parse_measures as parse_measures,
    rank_measure_names as rank_measure_names,
    rank_specs as rank_specs,
    register as register,
)

if TYPE_CHECKING:
    from ._views import (
        CLAIM_STATES as CLAIM_STATES,
        COUNTED as COUNTED,
        FACT_STATES as FACT_STATES,
        FRESH as FRESH,
        NO_EVIDENCE as NO_EVIDENCE,
        ClaimView as ClaimView,
        EvidenceFound as EvidenceFound,
        FactView as FactView,
        Found as Found,
        InvalidCitations as InvalidCitations,
        LabelsFound as LabelsFound,
        QuestionView as QuestionView,
        build_view as build_view,
    )

# The views (and the loading and schemas they read) are imported on first use: the rank
# measures (`trec-eval`) need none of them.
_LAZY = {
    "._views": (
        "CLAIM_STATES", "COUNTED", "FACT_STATES", "FRESH", "NO_EVIDENCE", "ClaimView",
        "EvidenceFound", "FactView", "Found", "InvalidCitations", "LabelsFound", "QuestionView",
        "build_view",
    ),
}


__getattr__, _LAZY_NAMES = lazy_names(__name__, _LAZY, globals())

__all__ = [
    "REGISTRY",
    "VALUE_RANGES",
    "Aggregate",
    "Layer",
    "Measure",
    "MetricSpec",
    "PerQuestion",
    "RankColumns",
    "RankForm",
    "Score",
    "aggregate",
    "boundaries",
    "coverage",
    "default_measures",
    "evidence",
    "exact_sum",
    "fraction_text",
    "lookup",
    "measures",
    "not_applicable_everywhere",
    "not_applicable_line",
    "parse_measure",
    "parse_measures",
    "rank_measure_names",
    "rank_specs",
    "ranking",
    "refusal",
    "register",
    "stale",
    "support",
    "value_text",
    *_LAZY_NAMES,
]
