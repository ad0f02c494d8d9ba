"""Answer support (faithfulness) and citation presence/validity, both micro over claims."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ._registry import MetricSpec, Score, register

if TYPE_CHECKING:
    from ._views import QuestionView


def _claim_support(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not view.claims:
        return None
    supported = sum(c.state == "supported" for c in view.claims)
    judged = sum(c.state in ("supported", "unsupported") for c in view.claims)
    return Score(supported, judged) if judged else None


def invalid_citations(view: QuestionView) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The claims without a valid citation, in claim order: (claim ID, the cited IDs that
    were not in the final context); an empty tuple of IDs means the claim cites nothing.

    The one rule behind `citation_validity`, the `invalid_citation` stage and the details.
    """
    context = set(view.context)
    out = []
    for claim in view.claims or ():
        outside = tuple(i for i in claim.citations if i not in context)
        if not claim.citations or outside:
            out.append((claim.claim_id, outside))
    return tuple(out)


def _citation_validity(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    if not view.claims:
        return None
    return Score(len(view.claims) - len(invalid_citations(view)), len(view.claims))


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
