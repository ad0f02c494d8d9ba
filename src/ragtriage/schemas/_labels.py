"""Review labels: which context items support a claim, which reference facts an answer covers."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ._common import SCHEMA_VERSION, Identifier, Labeller, StrictModel

ClaimVerdict = Literal["supported", "unsupported", "cannot_judge"]
FactVerdict = Literal["covered", "not_covered", "cannot_judge"]
LabelPolicy = Literal["human-first", "human", "judge"]
"""Which labels count: human ones when present else judge ones, only human, or only judge."""


class ClaimLabel(StrictModel):
    """One labeller's verdict on one claim."""

    verdict: ClaimVerdict
    """`supported`, `unsupported`, or `cannot_judge` (a valid answer, never scored)."""
    supported_by: list[Identifier] = Field(default_factory=list)
    """Context item IDs that support the claim; non-empty exactly when `supported`."""
    labeller: Labeller
    """Who made the label."""
    reason: str | None = None
    """Why, in the labeller's words (required in spirit for `cannot_judge`)."""
    context_hash: str | None = None
    """Hash of the exact context text the label was made against, when recorded."""


class FactLabel(StrictModel):
    """One labeller's verdict on whether an answer covers one reference fact."""

    fact_id: Identifier
    """The reference fact's ID (of the question)."""
    verdict: FactVerdict
    """`covered`, `not_covered` or `cannot_judge`."""
    labeller: Labeller
    """Who made the label."""
    reason: str | None = None
    """Why, in the labeller's words."""
    context_hash: str | None = None
    """Hash of the answer and context the label was made against, when recorded."""


class ClaimLabelEntry(StrictModel):
    """A claim label stored apart from the run, addressed by question and claim."""

    question_id: Identifier
    """The question whose answer holds the claim."""
    claim_id: Identifier
    """The claim's ID within the answer (`c1`, `c2`, ... when the run gives none)."""
    label: ClaimLabel
    """The label."""


class FactLabelEntry(StrictModel):
    """A fact label stored apart from the run, addressed by question."""

    question_id: Identifier
    """The question whose answer was labelled."""
    label: FactLabel
    """The label."""


class LabelSet(StrictModel):
    """Labels for one run, kept in their own file (e.g. from a review sheet or a judge)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    """File format version."""
    kind: Literal["labels"] = "labels"
    """File kind marker."""
    run: Identifier
    """Name of the run the labels belong to."""
    claim_labels: list[ClaimLabelEntry] = Field(default_factory=list)
    """Claim labels."""
    fact_labels: list[FactLabelEntry] = Field(default_factory=list)
    """Fact coverage labels."""
