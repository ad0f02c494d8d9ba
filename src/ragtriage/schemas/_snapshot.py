"""Knowledge snapshot: the documents a system could retrieve, and how chunks map to them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import Field, field_validator

from ._shared import SCHEMA_VERSION, Identifier, IsoDate, Scalar, SchemaVersion, StrictModel

DocumentStatus = Literal["current", "superseded", "withdrawn"]


class Document(StrictModel):
    """One document of the knowledge base, at one version."""

    id: Identifier
    """Stable document ID; chunk IDs, evidence and citations refer to it."""
    text: str
    """The document's full text."""
    title: str | None = None
    """An optional title."""
    version: str | None = None
    """The document's version label (e.g. `v2`, `2026-09`)."""
    status: DocumentStatus = "current"
    """`current`, `superseded` (a newer version replaces it) or `withdrawn` (no longer valid);
    when not given, `superseded` if another document supersedes it, else `current`."""
    supersedes: list[Identifier] = Field(default_factory=list)
    """IDs of the older documents this one replaces."""
    effective_date: IsoDate | None = None
    """ISO date from which this version applies, if known."""
    access_groups: list[Identifier] | None = None
    """Groups allowed to read the document, each named once; `null` means everyone may read
    it."""
    metadata: dict[str, Scalar] = Field(default_factory=dict)
    """Free-form metadata (source, section, language ...)."""


class Chunk(StrictModel):
    """A retrievable piece of a document, located by character span (rechunking stays traceable)."""

    id: Identifier
    """Stable chunk ID, as it appears in runs."""
    document_id: Identifier
    """The document the chunk was cut from."""
    start: int = Field(ge=0)
    """Character offset of the chunk's first character in the document text."""
    end: int = Field(ge=0)
    """Character offset one past the chunk's last character."""
    text: str | None = None
    """The chunk's text, if stored; must equal the document text over the span."""


class Snapshot(StrictModel):
    """A frozen knowledge base: documents, their versions and permissions, and chunks."""

    schema_version: SchemaVersion = SCHEMA_VERSION
    """File format version."""
    kind: Literal["snapshot"] = "snapshot"
    """File kind marker."""
    snapshot_id: Identifier
    """ID that runs and evaluation sets refer to."""
    documents: list[Document]
    """Every document, one entry per ID."""
    chunks: list[Chunk] = Field(default_factory=list)
    """Chunks, if runs retrieve chunks rather than whole documents."""
    metadata: dict[str, Scalar] = Field(default_factory=dict)
    """Free-form metadata about the whole snapshot (source, licence, attribution ...)."""

    @field_validator("documents")
    @classmethod
    def _infer_superseded(cls, documents: list[Document]) -> list[Document]:
        return superseded_unless_stated(documents)


def _status_given(doc: Document) -> bool:
    return "status" in doc.model_fields_set


def superseded_unless_stated(
    documents: Sequence[Document], stated: Callable[[Document], bool] = _status_given
) -> list[Document]:
    """The documents, each whose status is not `stated` (given: by default its own field, as
    a snapshot gives it; by its entry, in `versions.apply_versions`) made `superseded` when
    another one `supersedes` it, else `current`; a status so found stays unstated, so that it
    is found again when what supersedes what changes. The one status rule of a snapshot, built
    (`Snapshot`) or read item by item (the loader), and of a versions file."""
    replaced = {old for doc in documents for old in doc.supersedes}
    out = []
    for doc in documents:
        status = "superseded" if doc.id in replaced else "current"
        if stated(doc) or doc.status == status:
            out.append(doc)
        else:
            fields = {**dict(doc), "status": status}
            out.append(Document.model_construct(set(doc.model_fields_set), **fields))
    return out
