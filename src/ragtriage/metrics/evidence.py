"""Evidence recall: required evidence groups found in the final context."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ._registry import MetricSpec, Score, register

if TYPE_CHECKING:
    from ._views import QuestionView


def _evidence_recall(view: QuestionView, params: Mapping[str, int]) -> Score | None:
    groups = len(view.question.required_evidence)
    if view.question.answerability != "answerable" or groups == 0:
        return None
    return Score(view.groups_satisfied(view.context), groups)


EVIDENCE_RECALL = register(
    MetricSpec(
        name="evidence_recall",
        layer="retrieval",
        direction="higher",
        averaging="macro",
        kind="ratio",
        summary="Share of required evidence groups present in the final context.",
        formula="groups with at least one alternative in the context / required groups",
        denominator="answerable questions with required evidence (macro average)",
        not_applicable="unanswerable and needs-clarification questions; no required evidence",
        requires=("question.required_evidence", "result.context or ranking + k"),
        compute=_evidence_recall,
    )
)

