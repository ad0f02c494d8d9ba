"""Reference-fact coverage: how much of what the user needed the answer states."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._registry import MetricSpec, register

if TYPE_CHECKING:  # the views load on first use, not by trec-eval
    from ._views import QuestionView

NON_ANSWERS = {
    "refused": "answer refused",
    "clarified": "asked for clarification instead",
    "escalated": "handed to a person",
}
"""Why a non-answer covers none of its facts, by outcome, as reports say it."""


def non_answer_reason(view: QuestionView) -> str | None:
    """Why `fact_coverage` counts every reference fact of this question as not covered,
    whatever the fact labels say (`answer refused`, ...); None when the labels count."""
    if view.question.answerability != "answerable" or not view.facts or view.outcome is None:
        return None
    return NON_ANSWERS.get(view.outcome)


FACT_COVERAGE = register(
    MetricSpec(
        name="fact_coverage",
        layer="coverage",
        direction="higher",
        kind="ratio",
        summary="Share of a question's reference facts the answer covers.",
        formula=(
            "covered reference facts / judged reference facts (cannot-judge facts are left out "
            "and counted; a non-answer covers none of its facts: each counts as not covered, a "
            "cannot-judge one too, and a covered label on one is refused)"
        ),
        denominator="answerable questions with reference facts (macro average)",
        not_applicable=(
            "unanswerable or needs-clarification; no reference facts; no answer recorded"
        ),
        requires=("question.reference_facts", "fact labels", "result.outcome"),
        counts_cannot_judge=True,
    )
)
