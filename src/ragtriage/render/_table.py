"""The measures of a report's per-question table, the same in the terminal, Markdown and HTML."""

from __future__ import annotations

TABLE_MEASURES: tuple[str, ...] = (
    "evidence_recall",
    "fact_coverage",
    "claim_support",
    "citation_validity",
    "correct_refusal",
    "false_refusal",
)
"""Per-question values shown in the question table (when the evaluation reports them)."""
