"""Look-ups over a snapshot: which IDs exist, chunk -> document, versions and permissions."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from ..errors import Suggestions
from ..schemas import Chunk, Document, Snapshot

EvidenceLevel = Literal["document", "chunk", "span"]


@dataclass(frozen=True)
class SnapshotIndex:
    """Fast look-ups over a snapshot's documents and chunks."""

    documents: dict[str, Document]
    """Documents by ID."""
    chunks: dict[str, Chunk]
    """Chunks by ID."""
    superseded_by: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """For each superseded document, the documents that declare they supersede it."""

    @classmethod
    def build(cls, snapshot: Snapshot) -> SnapshotIndex:
        """Index a snapshot (first occurrence wins; duplicates are reported by validation)."""
        documents: dict[str, Document] = {}
        for doc in snapshot.documents:
            documents.setdefault(doc.id, doc)
        chunks: dict[str, Chunk] = {}
        for chunk in snapshot.chunks:
            chunks.setdefault(chunk.id, chunk)
        newer: dict[str, list[str]] = {}
        for doc in documents.values():
            for old in doc.supersedes:
                newer.setdefault(old, []).append(doc.id)
        return cls(documents, chunks, {k: tuple(sorted(v)) for k, v in newer.items()})

    def known(self, item_id: str) -> bool:
        """True for a document or chunk ID of the snapshot."""
        return item_id in self.documents or item_id in self.chunks

    def unknown(self, item_id: str) -> str:
        """How an unknown ID is shown in a problem: `'d-rest' (did you mean 'd-reset'?)`."""
        return repr(item_id) + self._suggestions(item_id)

    @cached_property
    def _suggestions(self) -> Suggestions:
        return Suggestions(self.documents.keys() | self.chunks.keys())

    def document_of(self, item_id: str) -> str:
        """The document an ID belongs to (itself for a document ID)."""
        chunk = self.chunks.get(item_id)
        return chunk.document_id if chunk is not None else item_id

    def document(self, item_id: str) -> Document | None:
        """The document an ID belongs to, if known."""
        return self.documents.get(self.document_of(item_id))

    def is_stale(self, item_id: str) -> bool:
        """True when the ID's document is superseded or withdrawn."""
        return item_id in self._stale

    @cached_property
    def _stale(self) -> frozenset[str]:
        """The IDs `is_stale` is true for, found once: the superseded or withdrawn documents
        (unless the ID also names a chunk) and the chunks of those documents."""
        old = {i for i, doc in self.documents.items() if doc.status != "current"}
        chunks = {i for i, chunk in self.chunks.items() if chunk.document_id in old}
        return frozenset(chunks | (old - self.chunks.keys()))

    def may_read(self, item_id: str, groups: Iterable[str] | None) -> bool:
        """Whether a user with these groups may read the item (`None` groups: no user given)."""
        doc = self.document(item_id)
        if doc is None or doc.access_groups is None or groups is None:
            return True
        return bool(set(doc.access_groups) & set(groups))
