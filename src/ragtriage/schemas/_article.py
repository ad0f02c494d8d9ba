"""The article format (`schemaVersion: 1`): corpus, cases and embedded runs in one file.

Its fields are named in camelCase, as the format spells them.
"""

from __future__ import annotations

from pydantic import Field

from ._shared import Identifier, SchemaVersion, StrictModel, Text


class ArticleDocument(StrictModel):
    """A corpus entry."""

    id: Identifier
    """Document ID."""
    text: str
    """Document text."""


class ArticleCase(StrictModel):
    """An evaluation case."""

    id: Identifier
    """Case ID."""
    question: Text
    """The question."""
    answerable: bool
    """Whether the corpus answers it."""
    requiredEvidenceIds: list[Identifier]
    """Every listed document is required (each one is its own evidence group)."""
    referenceFactIds: list[Identifier]
    """IDs of the facts a complete answer states (the format has no fact text)."""


class ArticleClaimReview(StrictModel):
    """Reviewer label of a claim."""

    supportedByIds: list[Identifier]
    """Context IDs supporting the claim; empty means unsupported."""


class ArticleClaim(StrictModel):
    """A claim of an answer."""

    text: Text
    """The claim."""
    citationIds: list[Identifier]
    """Cited IDs."""
    review: ArticleClaimReview
    """Reviewer label."""


class ArticleResultReview(StrictModel):
    """Reviewer label of the answer's coverage."""

    coveredReferenceFactIds: list[Identifier]
    """Reference facts the answer covers."""


class ArticleResult(StrictModel):
    """A run's result for one case."""

    caseId: Identifier
    """The case answered."""
    retrievedIds: list[Identifier]
    """The ranking; its top k is the context."""
    answer: str
    """The answer text."""
    abstained: bool
    """Whether the system refused."""
    claims: list[ArticleClaim]
    """The answer's claims."""
    review: ArticleResultReview
    """Coverage label."""


class ArticleRun(StrictModel):
    """A run embedded in the file."""

    name: Identifier
    """Run name."""
    results: list[ArticleResult]
    """One result per case."""


class ArticleDataset(StrictModel):
    """The whole article-format file."""

    schemaVersion: SchemaVersion
    """Format version; only 1 exists."""
    disclosure: str | None = None
    """Free text describing where the data came from."""
    corpus: list[ArticleDocument] = Field(min_length=1)
    """The documents."""
    cases: list[ArticleCase] = Field(min_length=1)
    """The questions."""
    runs: list[ArticleRun] = Field(default_factory=list)
    """Embedded runs."""
