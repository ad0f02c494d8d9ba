"""Answer support (faithfulness) and citation presence/validity, both micro over claims."""

from __future__ import annotations

from ._registry import MetricSpec, register

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
        counts_cannot_judge=True,
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
    )
)
