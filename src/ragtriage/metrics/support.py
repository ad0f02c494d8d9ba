"""Answer support (faithfulness) and citation presence/validity, both micro over claims."""

from __future__ import annotations

from collections.abc import Mapping

from ._registry import MetricSpec, Score, register
from ._views import QuestionView


def _claim_support(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not view.claims:
        return None
    supported = sum(c.state == "supported" for c in view.claims)
    judged = sum(c.state in ("supported", "unsupported") for c in view.claims)
    return Score(supported, judged) if judged else None


def _citation_validity(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not view.claims:
        return None
    context = set(view.context)
    valid = sum(bool(c.citations) and all(i in context for i in c.citations) for c in view.claims)
    return Score(valid, len(view.claims))


def _claims_cannot_judge(view: QuestionView) -> int:
    return sum(c.state == "cannot_judge" for c in view.claims or ())


CLAIM_SUPPORT = register(
    MetricSpec(
        name="claim_support",
        layer="support",
        direction="higher",
        averaging="micro",
        kind="ratio",
        summary="Share of the answer's claims that the final context supports.",
        formula="supported claims / judged claims (cannot-judge claims are left out and counted)",
        denominator="judged claims over all answers (micro average)",
        not_applicable="no claims (refusals, retrieval-only runs) or no judged claim",
        requires=("result.claims", "claim labels"),
        compute=_claim_support,
        cannot_judge=_claims_cannot_judge,
    )
)

CITATION_VALIDITY = register(
    MetricSpec(
        name="citation_validity",
        layer="citation",
        direction="higher",
        averaging="micro",
        kind="ratio",
        summary="Share of claims that cite something, and only IDs that were in the final context.",
        formula="claims with >= 1 citation, every cited ID in the context / claims",
        denominator="claims over all answers (micro average); says nothing about support",
        not_applicable="no claims",
        requires=("result.claims.citations", "result.context or ranking + k"),
        compute=_citation_validity,
    )
)
