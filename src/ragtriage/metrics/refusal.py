"""Refusal and clarification: stop when the material does not answer, answer when it does."""

from __future__ import annotations

from ._registry import MetricSpec, register


def _spec(name: str, answerability: str, outcome: str, direction: str, summary: str) -> MetricSpec:
    layer = "refusal" if outcome == "refused" else "clarification"
    return register(
        MetricSpec(
            name=name,
            layer=layer,  # type: ignore[arg-type]
            direction=direction,  # type: ignore[arg-type]
            kind="boolean",
            summary=summary,
            formula=f"1 when the outcome is `{outcome}`, else 0",
            denominator=f"{answerability.replace('_', '-')} questions with an outcome",
            not_applicable=f"questions that are not {answerability.replace('_', '-')}; no outcome",
            requires=("question.answerability", "result.outcome"),
        )
    )


CORRECT_REFUSAL = _spec(
    "correct_refusal",
    "unanswerable",
    "refused",
    "higher",
    "Share of unanswerable questions the system refused.",
)
FALSE_REFUSAL = _spec(
    "false_refusal",
    "answerable",
    "refused",
    "lower",
    "Share of answerable questions the system refused (report with correct_refusal).",
)
CORRECT_CLARIFICATION = _spec(
    "correct_clarification",
    "needs_clarification",
    "clarified",
    "higher",
    "Share of questions needing clarification where the system asked for it.",
)
NEEDLESS_CLARIFICATION = _spec(
    "needless_clarification",
    "answerable",
    "clarified",
    "lower",
    "Share of answerable questions where the system asked for clarification instead.",
)
