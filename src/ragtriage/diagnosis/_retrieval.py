"""Retrieval-side stages: where each missing required evidence group was lost.

A required group that the final context satisfies is never a finding. Any other group of an
answerable question is lost at exactly one transition of the pipeline
(candidates -> reranked list -> context):

- `retrieval_miss`: no candidate (and no reranked item) satisfies it;
- `ranking_loss`: a candidate satisfies it, but the reranked list (as the run records it) does
  not: the reranker dropped it. Only possible when a reranking stage ran;
- `truncation_loss`: the final ranking (the reranked list, else the candidates) satisfies it,
  at any depth, but the context does not: the cut-off k or the context budget dropped it.
  The reason names the rank, so a deep rank reads as a ranking problem.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import counted
from ..metrics import QuestionView
from ._model import Finding
from ._stage_inputs import GroupInputs, StageInputs


@dataclass(frozen=True)
class GroupLoss:
    """One required group missing from the context, and the stage where it was lost."""

    stage: str
    """`retrieval_miss`, `ranking_loss` or `truncation_loss`."""
    ids: tuple[str, ...]
    """The group's alternatives (a miss) or the retrieved item that satisfied it (a loss)."""
    why: str
    """One line."""


def group_name(group: GroupInputs) -> str:
    """A group as people read it: its label (masked, as every shown text), else its IDs."""
    from ..detectors import mask_text

    return mask_text(group.label) if group.label else "|".join(group.any_of)


def _as(name: str, item: str) -> str:
    return item if name == item else f"{name} (as {item})"


_last: tuple[StageInputs, tuple[GroupLoss, ...]] | None = None


def group_losses(view: StageInputs) -> tuple[GroupLoss, ...]:
    """Every required group absent from the final context, with its stage (answerable only)."""
    # Three stage checks ask in a row about the same view: remember the last answer.
    global _last
    last = _last
    if last is not None and last[0] is view:
        return last[1]
    losses = _group_losses(view)
    _last = (view, losses)
    return losses


def _group_losses(view: StageInputs) -> tuple[GroupLoss, ...]:
    question = view.question
    if question.answerability != "answerable":
        return ()
    final = "the reranked list" if view.reranked is not None else "the candidates"
    if view.context_derived and view.k is not None:
        kept = f"the top {view.k} kept as context"
    else:
        size = len(view.context)
        kept = f"the context ({counted(size, 'item')})"
    out = []
    for index in view.missing_groups:
        group = question.required_evidence[index]
        name = group_name(group)
        candidate, ranked, _ = view.evidence.first[index]
        if candidate is None and ranked is None:
            why = f"{name} is not among the {len(view.candidates)} candidates"
            out.append(GroupLoss("retrieval_miss", tuple(group.any_of), why))
        elif ranked is None:
            assert candidate is not None and view.reranked is not None  # see the branch above
            item = view.candidates[candidate]
            why = (
                f"{_as(name, item)} at candidate rank {candidate + 1}, "
                f"dropped by the reranker (not among its {len(view.reranked)} items)"
            )
            out.append(GroupLoss("ranking_loss", (item,), why))
        else:
            item = view.ranking[ranked]
            why = f"{_as(name, item)} at rank {ranked + 1} of {final}, outside {kept}"
            out.append(GroupLoss("truncation_loss", (item,), why))
    return tuple(out)


def check_retrieval_miss(view: StageInputs) -> Finding:
    """A required group that no candidate satisfies."""
    return _losses(view, "retrieval_miss")


def check_ranking_loss(view: StageInputs) -> Finding:
    """A required group among the candidates but not in the final ranking's top k."""
    return _losses(view, "ranking_loss")


def check_truncation_loss(view: StageInputs) -> Finding:
    """A required group in the final ranking's top k but not in the recorded context."""
    return _losses(view, "truncation_loss")


def _losses(view: StageInputs, stage: str) -> Finding:
    losses = [loss for loss in group_losses(view) if loss.stage == stage]
    ids = tuple(dict.fromkeys(i for loss in losses for i in loss.ids))
    return Finding(stage, ids, "; ".join(loss.why for loss in losses))


def check_permission_leak(view: QuestionView) -> Finding:
    """A document the asker may not read reached the context or the answer (cited, support).

    The IDs are document IDs; the reason names, per document, every stage it reached
    (`ragtriage.detectors.permissions`).
    """
    from ..detectors import BLOCKING_STAGES, check_permissions

    check = check_permissions(view)
    # Only a leak that reached the model or the answer is this stage (a candidate-only leak
    # was filtered in time); the reason still lists every stage each document reached.
    where = {
        "candidates": "among the candidates", "context": "in the context",
        "cited": "cited", "support": "supporting a claim",
    }
    reached = tuple(dict.fromkeys(i for stage in BLOCKING_STAGES for i in check.at(stage)))
    parts = []
    for doc_id in reached:
        doc = view.index.documents.get(doc_id)
        allowed = ", ".join(doc.access_groups or ()) if doc is not None else ""
        stages = ", ".join(where[s] for s, ids in check.leaks if doc_id in ids)
        parts.append(f"{doc_id} (readable by {allowed or 'nobody'}) {stages}")
    asker = ", ".join(view.question.user_groups or ()) or "no groups"
    return Finding("permission_leak", reached, f"{'; '.join(parts)}; the asker has {asker}")
