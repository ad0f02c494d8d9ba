"""Per-question views: one question, one run's result, resolved against the snapshot.

What one question's explanation is built from (details, diagnosis findings, label sources,
the boundary section); the engine's arrays compute every score.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any, Final, Literal, get_args

from pydantic import ValidationError

from ..detectors import (
    StageFlags,
    context_hash_of,
    recorded_texts,
    sent_texts,
    texts_of,
)
from ..loading import EvidenceLevel, SnapshotIndex
from ..schemas import Question, QuestionResult, claim_ids, final_ranking_of, record_kind

ClaimState = Literal["supported", "unsupported", "cannot_judge", "unlabelled"]
FactState = Literal["covered", "not_covered", "cannot_judge", "unlabelled"]
CLAIM_STATES: tuple[ClaimState, ...] = get_args(ClaimState)
"""A claim's states in the order of their codes in the engine's arrays."""
FACT_STATES: tuple[FactState, ...] = get_args(FactState)
"""A fact's states in the order of their codes in the engine's arrays."""
FRESH: Final = 1
"""A label's mark (`LabelsFound`): made against the current context (not stale)."""
COUNTED: Final = 2
"""A label's mark (`LabelsFound`): it counts under the label policy."""
_EVERY = FRESH | COUNTED


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
class EvidenceFound:
    """Where a question's required evidence groups are satisfied in one run's result, at the
    view's evidence level, as the engine's matcher found them (the one matching rule)."""

    first: tuple[tuple[int | None, int | None, int | None], ...]
    """Per required group, in order: the position of the first item satisfying it among the
    candidates, in the final ranking (the reranked list, else the candidates) and in the
    context; None where no item does."""
    items: frozenset[str]
    """The result's items (candidates, reranked, context) that satisfy some required group."""


NO_EVIDENCE = EvidenceFound((), frozenset())
"""The evidence of a question without required groups."""

LabelsFound = tuple[tuple[int, tuple[int, ...]], ...]
"""Per claim (or reference fact) of a result, in order, as the engine chose its labels: the
code of its state (`CLAIM_STATES`, `FACT_STATES`) and per label, in the order of the record's
labels (label files' after the result's own), its marks (`FRESH`, `COUNTED`)."""

InvalidCitations = tuple[tuple[int, tuple[int, ...]], ...]
"""A result's claims without a valid citation, in claim order, as the engine found them: (the
claim's index, the positions in its citations of the IDs outside the final context); no
positions: the claim cites nothing."""

@dataclass(frozen=True, slots=True)
class Found:
    """What the engine found of one result, for its view (`build_view`)."""

    candidates: tuple[str, ...]
    """First-stage ranking IDs."""
    reranked: tuple[str, ...] | None
    """Reranked IDs, if a reranking stage ran."""
    context: tuple[str, ...]
    """IDs of the final context: recorded, else the top k of the final ranking."""
    context_derived: bool
    """The context is the top k of the final ranking (none recorded)."""
    evidence: EvidenceFound
    """Where its required groups are satisfied."""
    flags: StageFlags
    """Stale items and unreadable documents per stage, whether the canary reached the
    context."""
    invalid: InvalidCitations
    """Its claims without a valid citation."""
    claims: LabelsFound
    """Its claims' states and which of their labels are fresh and counted."""
    facts: LabelsFound
    """Likewise for its question's reference facts."""


@dataclass(frozen=True, eq=False)
class QuestionView:
    """One question and one run's result for it, resolved for scoring.

    Built from the result as parsed JSON (`record`); the result's model (`result`) is
    validated from it only when asked for, unless the caller holds it. Two views are equal
    when their fields and their results' models are (a record read from a file leaves out
    what a model's JSON form spells as defaults).
    """

    question: Question
    """The question."""
    record: Mapping[str, Any]
    """The run's result as parsed JSON, as the checks of the first read accepted it (not
    changed)."""
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
    evidence: EvidenceFound
    """Where its required groups are satisfied (the engine's matcher)."""
    flags: StageFlags
    """Stale items and unreadable documents per stage (the engine's)."""
    invalid_citations: tuple[tuple[str, tuple[str, ...]], ...]
    """The claims without a valid citation, in claim order (the engine's `citation_validity`
    rule): (claim ID, the cited IDs that were not in the final context); no IDs: the claim
    cites nothing."""
    stale_labels: tuple[str, ...] = ()
    """Claim and fact IDs with a label made against another context (not used; `labels_trust`)."""
    held: QuestionResult | None = field(default=None, repr=False)
    """The result's model when the caller holds it (a `Dataset` in memory); None: `result`
    validates `record` when first asked."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QuestionView):
            return NotImplemented
        return self._compared() == other._compared() and self.result == other.result

    def _compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self) if f.name not in _FORMS)

    @cached_property
    def result(self) -> QuestionResult:
        """The run's result as a model: the one held, else `record` validated (a record the
        first read's checks accepted, which the model accepts: `RuntimeError` otherwise)."""
        if self.held is not None:
            return self.held
        try:
            return QuestionResult.model_validate(self.record)
        except ValidationError as exc:
            raise RuntimeError(
                f"ragtriage accepted a result for question {self.question.id} that its schema "
                f"refuses; please report it"
            ) from exc

    @cached_property
    def missing_groups(self) -> tuple[int, ...]:
        """The required evidence groups (indices, in order) the final context does not
        satisfy."""
        return tuple(i for i, at in enumerate(self.evidence.first) if at[2] is None)

    @cached_property
    def tags(self) -> tuple[str, ...]:
        """The question's tags, each tag's text held once for every question (a record and a
        diagnosis of a million questions share them)."""
        return tuple(map(sys.intern, self.question.tags))

    @property
    def outcome(self) -> str | None:
        """The result's outcome (None for a retrieval-only run), one text per outcome."""
        outcome: str | None = self.record.get("outcome")
        return None if outcome is None else sys.intern(outcome)

    @property
    def answer(self) -> str | None:
        """The result's answer (None for a retrieval-only run)."""
        answer: str | None = self.record.get("answer")
        return answer

    @property
    def latency_ms(self) -> float | None:
        """The result's end-to-end latency, as the model holds it (a float)."""
        return _float(self.record.get("latency_ms"))

    @property
    def cost_usd(self) -> float | None:
        """The result's cost, as the model holds it (a float)."""
        return _float(self.record.get("cost_usd"))

    @cached_property
    def recorded(self) -> dict[str, str]:
        """The texts the result records for its context items, by ID
        (`detectors.recorded_texts`)."""
        return recorded_texts(self.record.get("context"))

    @cached_property
    def context_texts(self) -> tuple[tuple[str, str], ...]:
        """(ID, text) of each final-context item: the recorded text, else the snapshot's
        (`detectors.texts_of`)."""
        return texts_of(self.recorded, self.context, self.index)

    @cached_property
    def context_hash(self) -> str:
        """Hash of the final context and k that labels are checked against (`labels_trust`)."""
        return context_hash_of(sent_texts(self.recorded, self.context, self.index), self.k)

    @property
    def ranking(self) -> tuple[str, ...]:
        """The final ranking (`schemas.final_ranking_of`): reranked when reranking ran, else
        the candidates."""
        return final_ranking_of(self.reranked, self.candidates)


_FORMS = frozenset({"record", "held"})
"""The fields that hold the result itself (compared as its model)."""


def _float(value: Any) -> float | None:
    """A number as the model holds it: a float field takes an int as its float."""
    return None if value is None else float(value)


Label = Mapping[str, Any]
"""A claim or fact label as parsed JSON."""


def build_view(
    question: Question,
    record: Mapping[str, Any],
    index: SnapshotIndex,
    level: EvidenceLevel,
    k: int | None,
    found: Found,
    held: QuestionResult | None = None,
) -> QuestionView:
    """Resolve one result, as parsed JSON that the first read's checks accepted (or a
    model's JSON form), against its question and the snapshot. `found`: what the engine
    found of it (its rankings and context as snapshot IDs, each ID's text held once for all
    views; where its evidence is; its stale and unreadable items; its invalid claims; its
    claims' and facts' states and counted labels); `held`: the result's model when the
    caller holds it (see `QuestionView.held`)."""
    intern = sys.intern
    raw_claims = record.get("claims")
    stale: list[str] = []
    claims: tuple[ClaimView, ...] | None = None
    if raw_claims is not None:
        views = []
        names = claim_ids(claim.get("id") for claim in raw_claims)
        for claim_id, claim, (code, marks) in zip(names, raw_claims, found.claims, strict=True):
            labels: Sequence[Label] = claim.get("labels", ())
            fresh, chosen = _marked(labels, marks)
            if len(fresh) < len(labels):
                stale.append(claim_id)
            state = CLAIM_STATES[code]
            support: tuple[str, ...] = ()
            if state == "supported":
                support = tuple(
                    dict.fromkeys(i for lab in chosen for i in lab.get("supported_by", ()))
                )
            views.append(
                ClaimView(
                    intern(claim_id),
                    claim["text"],
                    tuple(claim.get("citations", ())),
                    state,
                    support,
                    record_kind(chosen[0]) if chosen else None,
                    tuple(dict.fromkeys(lab["labeller"]["name"] for lab in chosen)),
                )
            )
        claims = tuple(views)
    fact_labels: Sequence[Label] = record.get("fact_labels", ())
    facts = []
    for fact, (code, marks) in zip(question.reference_facts, found.facts, strict=True):
        mine = [lab for lab in fact_labels if lab["fact_id"] == fact.id]
        fresh, chosen = _marked(mine, marks)
        if len(fresh) < len(mine):
            stale.append(fact.id)
        facts.append(
            FactView(intern(fact.id), FACT_STATES[code], record_kind(chosen[0]) if chosen else None)
        )
    return QuestionView(
        question,
        record,
        index,
        level,
        k,
        found.candidates,
        found.reranked,
        found.context,
        found.context_derived,
        claims,
        tuple(facts),
        found.evidence,
        found.flags,
        tuple(
            (claim.claim_id, tuple(claim.citations[at] for at in outside))
            for claim, outside in ((claims[n], outside) for n, outside in found.invalid)
        ) if claims else (),
        tuple(stale),
        held,
    )


def _marked(labels: Sequence[Label], marks: Sequence[int]) -> tuple[list[Label], list[Label]]:
    """The fresh labels and the counted labels among `labels`, as the engine marked them."""
    if len(marks) == len(labels) == marks.count(_EVERY):  # each fresh and counted
        every = list(labels)
        return every, every
    fresh = [lab for lab, mark in zip(labels, marks, strict=True) if mark & FRESH]
    chosen = [lab for lab, mark in zip(labels, marks, strict=True) if mark & COUNTED]
    return fresh, chosen
