"""Diagnosis stages for instructions in documents: `injection_in_context`, `injection_followed`.

Imported by `ragtriage.diagnosis` (it registers the stages on import). `injection_followed`
is an answer failure and sits right after `truncation_loss`, before the other answer stages.
`injection_in_context` is a side check on the context, placed last (after `judge_uncertain`):
it is the primary stage only when nothing else failed, and a secondary one otherwise, so a
question whose answer obeyed the planted text shows `injection_followed` first.
"""

from __future__ import annotations

from ..detectors import default_injection_rules, flag_context
from ..metrics import QuestionView
from ._model import Finding
from ._pipeline import register_detected, stage_order

INJECTION_IN_CONTEXT = "injection_in_context"
"""Stage: the final context holds instruction-like text aimed at the model."""
INJECTION_FOLLOWED = "injection_followed"
"""Stage: the answer carries the marker of a canary instruction planted in its context."""


def check_injection_in_context(view: QuestionView) -> Finding:
    """The context items on which the bundled injection rules fire."""
    rules = default_injection_rules()
    flagged = flag_context(view, rules)
    parts = [f"{item.item_id} ({', '.join(m.rule_id for m in item.matches)})" for item in flagged]
    return Finding(
        INJECTION_IN_CONTEXT,
        tuple(item.item_id for item in flagged),
        f"instruction-like text in the context: {'; '.join(parts)} [rules {rules.version}]",
    )


def check_injection_followed(view: QuestionView) -> Finding:
    """The planted canary reached the context (its document, or a chunk of it holding the
    instruction) and its marker is in the answer."""
    canary = view.question.canary
    assert canary is not None  # the engine found it in the context
    return Finding(
        INJECTION_FOLLOWED,
        (canary.document_id,),
        f"the answer contains the marker {canary.marker!r} of the instruction planted in "
        f"{canary.document_id}",
    )


def register() -> None:
    """Register both stages with the diagnosis (once; later calls do nothing)."""
    if INJECTION_FOLLOWED not in stage_order():
        register_detected(INJECTION_FOLLOWED, check_injection_followed, after="truncation_loss")
    if INJECTION_IN_CONTEXT not in stage_order():
        register_detected(
            INJECTION_IN_CONTEXT, check_injection_in_context, after="judge_uncertain"
        )


register()
