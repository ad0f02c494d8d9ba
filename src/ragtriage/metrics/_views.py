"""Per-question views: one question, one run's result, resolved against the snapshot.

What one question's explanation is built from (details, diagnosis findings, label sources,
the boundary section); the engine's arrays compute every score.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from ..detectors import context_hash, is_stale
from ..loading import EvidenceLevel, SnapshotIndex
from ..schemas import (
    ClaimLabel,
    FactLabel,
    LabelPolicy,
    Question,
    QuestionResult,
    counted_labels,
)

ClaimState = Literal["supported", "unsupported", "cannot_judge", "unlabelled"]
FactState = Literal["covered", "not_covered", "cannot_judge", "unlabelled"]


@dataclass(frozen=True)
class ClaimView:
    """A claim with the label that counts under the label policy."""

    claim_id: str
    """`c1`, `c2`, ... when the run gives no ID."""
    text: str
    """The claim."""
    citations: tuple[str, ...]
    """Cited IDs."""
    state: ClaimState
    """The verdict that counts; `cannot_judge` also when labellers of one kind disagree."""
    supported_by: tuple[str, ...]
    """Supporting context IDs from the counted label."""
    labelled_by: str | None
    """`human` or `judge`: the kind of label that counted."""
    labellers: tuple[str, ...] = ()
    """The names of the labellers whose labels counted (reviewers or judge models)."""


@dataclass(frozen=True)
class FactView:
    """A reference fact with the coverage verdict that counts."""

    fact_id: str
    """The fact."""
    state: FactState
    """The verdict that counts."""
    labelled_by: str | None
    """`human` or `judge`."""


@dataclass(frozen=True)
class QuestionView:
    """One question and one run's result for it, resolved for scoring."""

    question: Question
    """The question."""
    result: QuestionResult
    """The run's result."""
    index: SnapshotIndex
    """The snapshot look-ups."""
    level: EvidenceLevel
    """Level at which evidence is matched."""
    k: int | None
    """Cut-off for rankings (and for the derived context)."""
    candidates: tuple[str, ...]
    """First-stage ranking IDs."""
    reranked: tuple[str, ...] | None
    """Reranked IDs, if a reranking stage ran."""
    context: tuple[str, ...]
    """IDs of the final context."""
    context_derived: bool
    """True when the context is the top k of the final ranking (no recorded context)."""
    claims: tuple[ClaimView, ...] | None
    """Claims with counted labels; `None` when the run has no extracted claims."""
    facts: tuple[FactView, ...]
    """Reference facts with counted coverage."""
    stale_labels: tuple[str, ...] = ()
    """Claim and fact IDs with a label made against another context (not used; `labels_trust`)."""
    known_missing: tuple[int, ...] | None = None
    """`missing_groups` as the caller found them (the engine, from its arrays); None: found
    on the view when asked."""

    @cached_property
    def missing_groups(self) -> tuple[int, ...]:
        """The required evidence groups (indices, in order) the final context does not
        satisfy."""
        if self.known_missing is not None:
            return self.known_missing
        groups = range(len(self.question.required_evidence))
        return tuple(i for i in groups if not self.group_satisfied(i, self.context))

    @cached_property
    def tags(self) -> tuple[str, ...]:
        """The question's tags, each tag's text held once for every question (a record and a
        diagnosis of a million questions share them)."""
        return tuple(map(sys.intern, self.question.tags))

    @property
    def outcome(self) -> str | None:
        """The result's outcome (None for a retrieval-only run), one text per outcome."""
        return None if self.result.outcome is None else sys.intern(self.result.outcome)

    @cached_property
    def context_hash(self) -> str:
        """Hash of the final context and k that labels are checked against (`labels_trust`)."""
        return context_hash(self.result, self.context, self.index, self.k)

    @property
    def ranking(self) -> tuple[str, ...]:
        """The final ranking: reranked when reranking ran, else the candidates."""
        return self.reranked if self.reranked is not None else self.candidates

    def group_satisfied(self, group_index: int, items: Sequence[str]) -> bool:
        """Whether required group `group_index` is satisfied by any of `items`."""
        group = self.question.required_evidence[group_index]
        return any(
            self.index.matches(req, item, self.level) for req in group.any_of for item in items
        )

    def groups_satisfied(self, items: Sequence[str]) -> int:
        """How many required groups `items` satisfy (each group counts once)."""
        return sum(
            self.group_satisfied(i, items) for i in range(len(self.question.required_evidence))
        )

    def relevant_grade(self, item: str) -> int:
        """The best grade of a required group this item satisfies (0 when none)."""
        grades = [
            group.grade
            for group in self.question.required_evidence
            if any(self.index.matches(req, item, self.level) for req in group.any_of)
        ]
        return max(grades, default=0)


def _kind(label: ClaimLabel | FactLabel) -> str:
    return label.labeller.kind


def build_view(
    question: Question,
    result: QuestionResult,
    index: SnapshotIndex,
    level: EvidenceLevel,
    k: int | None,
    policy: LabelPolicy,
    missing_groups: Sequence[int] | None = None,
) -> QuestionView:
    """Resolve one result against its question and the snapshot. `missing_groups`: the
    view's `missing_groups` when the caller found them already (None: found when asked)."""
    # Snapshot IDs, each held once (the details and findings of a million questions name
    # them again and again).
    intern = sys.intern
    candidates = tuple([intern(item.id) for item in result.candidates])
    reranked = (
        None if result.reranked is None
        else tuple([intern(item.id) for item in result.reranked])
    )
    ranking = reranked if reranked is not None else candidates
    if result.context is not None:
        context, derived = tuple([intern(item.id) for item in result.context]), False
    else:
        context, derived = (ranking[:k] if k is not None else ranking), True
    # A label made against another context (text, order, k) is stale: excluded, counted. The
    # hash is computed only when some label records one (hashing every context is costly).
    stamped = any(
        lab.context_hash is not None for claim in result.claims or () for lab in claim.labels
    ) or any(lab.context_hash is not None for lab in result.fact_labels)
    current_hash = context_hash(result, context, index, k) if stamped else ""
    stale: list[str] = []
    claims: tuple[ClaimView, ...] | None = None
    if result.claims is not None:
        views = []
        for number, claim in enumerate(result.claims, start=1):
            fresh = [lab for lab in claim.labels if not is_stale(lab, current_hash)]
            if len(fresh) < len(claim.labels):
                stale.append(claim.id or f"c{number}")
            chosen = counted_labels(fresh, policy, _kind)
            verdicts = {lab.verdict for lab in chosen}
            state: ClaimState
            support: tuple[str, ...]
            kind: str | None
            if not chosen:
                state, support, kind = "unlabelled", (), None
            elif len(verdicts) > 1:
                state, support, kind = "cannot_judge", (), chosen[0].labeller.kind
            else:
                state = chosen[0].verdict
                support = tuple(dict.fromkeys(i for lab in chosen for i in lab.supported_by))
                kind = chosen[0].labeller.kind
            views.append(
                ClaimView(
                    intern(claim.id or f"c{number}"),
                    claim.text,
                    tuple(claim.citations),
                    state,
                    support,
                    kind,
                    tuple(dict.fromkeys(lab.labeller.name for lab in chosen)),
                )
            )
        claims = tuple(views)
    facts = []
    for fact in question.reference_facts:
        mine = [lab for lab in result.fact_labels if lab.fact_id == fact.id]
        fresh_facts = [lab for lab in mine if not is_stale(lab, current_hash)]
        if len(fresh_facts) < len(mine):
            stale.append(fact.id)
        labels = counted_labels(fresh_facts, policy, _kind)
        fact_verdicts = {lab.verdict for lab in labels}
        fstate: FactState
        if not labels:
            fstate = "unlabelled"
        elif len(fact_verdicts) > 1:
            fstate = "cannot_judge"
        else:
            fstate = labels[0].verdict
        labelled_by = labels[0].labeller.kind if labels else None
        facts.append(FactView(intern(fact.id), fstate, labelled_by))
    return QuestionView(
        question,
        result,
        index,
        level,
        k,
        candidates,
        reranked,
        context,
        derived,
        claims,
        tuple(facts),
        tuple(stale),
        None if missing_groups is None else tuple(missing_groups),
    )
