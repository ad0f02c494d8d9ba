"""Evaluation set: questions with what a correct answer needs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from ..fileio import MAX_GRADE
from ._shared import SCHEMA_VERSION, Identifier, IsoDate, Scalar, SchemaVersion, StrictModel, Text

Answerability = Literal["answerable", "unanswerable", "needs_clarification"]
Split = Literal["dev", "regression", "holdout"]


class EvidenceGroup(StrictModel):
    """A group of alternatives: any one of its IDs satisfies the requirement."""

    any_of: list[Identifier] = Field(min_length=1)
    """Document or chunk IDs, each of which alone satisfies this group."""
    grade: int = Field(default=1, ge=1, le=MAX_GRADE)
    """Graded relevance of this evidence (for nDCG); 1 unless graded."""
    label: str | None = None
    """An optional human-readable name for the requirement."""


class ReferenceFact(StrictModel):
    """A fact a complete answer must state."""

    id: Identifier
    """Fact ID, unique within the question."""
    text: str | None = None
    """The fact in words (optional for imported formats that only carry IDs)."""
    evidence: list[Identifier] = Field(default_factory=list)
    """Document or chunk IDs that support the fact, if known."""


class AppliesTo(StrictModel):
    """The version or date a question's answer must hold for."""

    version: str | None = None
    """Document version the answer must come from (e.g. `v2`); a version no document of the
    snapshot has is an input error."""
    date: IsoDate | None = None
    """ISO date the answer must be valid on."""


class Canary(StrictModel):
    """An instruction planted in a document to test whether the system obeys text in its context."""

    document_id: Identifier
    """The document (or chunk) that carries the planted instruction."""
    instruction: Text
    """The planted instruction, as it appears in the document (an input error when its
    document does not hold it)."""
    marker: Text
    """Text that appears in an answer only if the system obeyed the instruction."""


class Question(StrictModel):
    """One evaluation question."""

    id: Identifier
    """Stable question ID."""
    text: Text
    """The question as the user asked it."""
    answerability: Answerability
    """Whether the snapshot answers it, does not, or it needs a clarifying question first."""
    required_evidence: list[EvidenceGroup] = Field(default_factory=list)
    """Evidence requirements; each group must be satisfied by one of its alternatives."""
    reference_facts: list[ReferenceFact] = Field(default_factory=list)
    """Facts a complete answer states."""
    applies_to: AppliesTo | None = None
    """Version or date the answer must apply to."""
    tags: list[Identifier] = Field(default_factory=list)
    """Slices, e.g. `exact-identifier`, `multi-fact`, `version-conflict`, `no-answer` (a tag
    listed twice puts its question in the slice once)."""
    split: Split = "dev"
    """`dev` (tuning), `regression` (protects fixed behaviour) or `holdout` (kept apart)."""
    user_groups: list[Identifier] | None = None
    """The asking user's access groups, each named once; `null` when the question is asked
    without a user. An answerable question needs, in every evidence group, an alternative they
    may read."""
    canary: Canary | None = None
    """A planted instruction to check the answer against, if the set plants one."""


class EvalSet(StrictModel):
    """A set of evaluation questions over one snapshot."""

    schema_version: SchemaVersion = SCHEMA_VERSION
    """File format version."""
    kind: Literal["evalset"] = "evalset"
    """File kind marker."""
    evalset_id: Identifier
    """ID that runs refer to."""
    snapshot_id: Identifier | None = None
    """The snapshot the questions are written against."""
    # Not `min_length`: the loader validates a file's header without its items, and refuses
    # an empty list itself (`loading`'s layouts read this minimum): an evaluation set without
    # questions scores nothing, every aggregate not applicable, and a gate would pass on it.
    questions: list[Question] = Field(json_schema_extra={"minItems": 1})
    """The questions (at least one; a file without any is refused), one entry per ID."""
    metadata: dict[str, Scalar] = Field(default_factory=dict)
    """Free-form metadata about the set (source, licence, attribution ...)."""


def question_slices(tags: Sequence[str], split: str) -> tuple[str, ...]:
    """The slices a question is in, as reports and gate policies name them: `split:SPLIT`,
    then `tag:TAG` for each of its tags in order, a tag listed twice once (every question is
    also in `all`)."""
    return (f"split:{split}", *[f"tag:{tag}" for tag in dict.fromkeys(tags)])
