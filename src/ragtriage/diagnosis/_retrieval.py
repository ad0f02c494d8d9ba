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

from collections.abc import Sequence

from ..errors import counted
from ..metrics import QuestionView
from ._model import Finding
from ._stage_inputs import GroupInputs, StageInputs

_Lost = dict[str, tuple[list[str], list[str]]]
"""A question's required groups absent from the final context, by the stage where each was
lost (`retrieval_miss`, `ranking_loss` or `truncation_loss`): the IDs that prove it, in group
order (a miss: the group's alternatives; a loss: the retrieved item that satisfied it), and
one line per group."""


def group_name(group: GroupInputs) -> str:
    """A group as people read it: its label (masked, as every shown text), else its IDs."""
    if not group.label:
        return "|".join(group.any_of)
    # Imported where a group has a label: most have none, and an import statement run for
    # every group costs more than the join.
    from ..detectors import mask_text

    return mask_text(group.label)


def _as(name: str, item: str) -> str:
    return item if name == item else f"{name} (as {item})"


_last: tuple[StageInputs, _Lost] | None = None


def _lost(view: StageInputs) -> _Lost:
    """Every required group absent from the final context, by stage (answerable only)."""
    # Three stage checks ask in a row about the same view: remember the last answer.
    global _last
    last = _last
    if last is not None and last[0] is view:
        return last[1]
    lost = _group_losses(view)
    _last = (view, lost)
    return lost


def _group_losses(view: StageInputs) -> _Lost:
    out: _Lost = {}
    question = view.question
    if question.answerability != "answerable":
        return out
    groups = question.required_evidence
    # The missing groups are those the context holds nothing of (`QuestionView.missing_groups`),
    # found from the same positions that say where each was lost, without building their tuple.
    for index, (candidate, ranked, held) in enumerate(view.evidence.first):
        if held is not None:
            continue
        group = groups[index]
        name = group_name(group)
        if candidate is None and ranked is None:
            stage = "retrieval_miss"
            n = len(view.candidates)
            why = (f"{name} is not among the {counted(n, 'candidate')}" if n
                   else f"{name} is not among the candidates: there are none")
            ids: Sequence[str] = group.any_of
        elif ranked is None:
            reranked = view.reranked
            assert candidate is not None and reranked is not None  # see the branch above
            item = view.candidates[candidate]
            stage = "ranking_loss"
            why = (
                f"{_as(name, item)} at candidate rank {candidate + 1}, "
                f"dropped by the reranker (not among its {counted(len(reranked), 'item')})"
            )
            ids = (item,)
        else:
            final, kept = _cut(view)
            item = view.ranking[ranked]
            stage = "truncation_loss"
            why = f"{_as(name, item)} at rank {ranked + 1} of {final}, outside {kept}"
            ids = (item,)
        proof, whys = out.setdefault(stage, ([], []))
        proof.extend(ids)
        whys.append(why)
    return out


def _cut(view: StageInputs) -> tuple[str, str]:
    """The final ranking and the context as a truncation loss names them: read only for a
    truncation loss, as a miss names neither the reranked list nor the context."""
    final = "the reranked list" if view.reranked is not None else "the candidates"
    if view.context_derived and view.k is not None:
        return final, f"the top {view.k} kept as context"
    return final, f"the context ({counted(len(view.context), 'item')})"


def check_retrieval_miss(view: StageInputs) -> Finding:
    """A required group that no candidate satisfies."""
    return _losses(view, "retrieval_miss")


def check_ranking_loss(view: StageInputs) -> Finding:
    """A required group among the candidates but not in the reranked list as recorded."""
    return _losses(view, "ranking_loss")


def check_truncation_loss(view: StageInputs) -> Finding:
    """A required group in the final ranking, at any depth, but not in the context."""
    return _losses(view, "truncation_loss")


def _losses(view: StageInputs, stage: str) -> Finding:
    ids, whys = _lost(view).get(stage, ((), ()))
    return Finding(stage, tuple(dict.fromkeys(ids)), "; ".join(whys))


def check_permission_leak(view: QuestionView) -> Finding:
    """A document the asker may not read reached the context or the answer (cited, support).

    The IDs are document IDs; the reason names, per document, every stage it reached
    (`ragtriage.detectors.permissions`).
    """
    from ..detectors import check_permissions

    check = check_permissions(view)
    # Only a leak that reached the model or the answer is this stage (a candidate-only leak
    # was filtered in time); the reason still lists every stage each document reached.
    where = {
        "candidates": "among the candidates", "context": "in the context",
        "cited": "cited", "support": "supporting a claim",
    }
    reached = check.blocking_documents
    parts = []
    for doc_id in reached:
        doc = view.index.documents.get(doc_id)
        allowed = ", ".join(doc.access_groups or ()) if doc is not None else ""
        stages = ", ".join(where[s] for s, ids in check.leaks if doc_id in ids)
        parts.append(f"{doc_id} (readable by {allowed or 'nobody'}) {stages}")
    asker = ", ".join(view.question.user_groups or ()) or "no groups"
    return Finding("permission_leak", reached, f"{'; '.join(parts)}; the asker has {asker}")
