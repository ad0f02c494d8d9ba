"""Evidence recall: required evidence groups found in the final context."""

from __future__ import annotations

from ._registry import MetricSpec, register

EVIDENCE_RECALL = register(
    MetricSpec(
        name="evidence_recall",
        layer="retrieval",
        direction="higher",
        kind="ratio",
        summary="Share of required evidence groups present in the final context.",
        formula="groups with at least one alternative in the context / required groups",
        denominator="answerable questions with required evidence (macro average)",
        not_applicable="unanswerable and needs-clarification questions; no required evidence",
        requires=("question.required_evidence", "result.context or ranking + k"),
    )
)
