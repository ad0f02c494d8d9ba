"""Retrieval filters: keep only current documents, and only what the asking user may read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..schemas import Question, Scalar, Snapshot
from ._units import Unit


@dataclass(frozen=True)
class UnitFilter:
    """Which units a question may retrieve, under the filters switched on."""

    current_only: bool
    """Drop units of superseded and withdrawn documents."""
    permissions: bool
    """Drop units of documents the question's `user_groups` may not read."""
    _current: npt.NDArray[np.bool_]
    _groups: tuple[tuple[str, ...] | None, ...]
    _memo: dict[tuple[str, ...], npt.NDArray[np.bool_]] = field(default_factory=dict)

    @classmethod
    def build(
        cls, snapshot: Snapshot, units: Sequence[Unit], *, current_only: bool, permissions: bool
    ) -> UnitFilter:
        """Look up each unit's document status and access groups once."""
        docs = {doc.id: doc for doc in snapshot.documents}
        status = [docs[u.document_id].status if u.document_id in docs else "current" for u in units]
        groups = tuple(
            tuple(docs[u.document_id].access_groups or ())
            if u.document_id in docs and docs[u.document_id].access_groups is not None
            else None
            for u in units
        )
        current = np.array([s == "current" for s in status], dtype=bool)
        return cls(current_only, permissions, current, groups)

    def allowed(self, question: Question) -> npt.NDArray[np.bool_] | None:
        """One flag per unit, or `None` when nothing is filtered for this question."""
        mask: npt.NDArray[np.bool_] | None = self._current if self.current_only else None
        if self.permissions and question.user_groups is not None:
            key = tuple(sorted(question.user_groups))
            readable = self._memo.get(key)
            if readable is None:
                mine = set(key)
                readable = np.array(
                    [g is None or bool(mine & set(g)) for g in self._groups], dtype=bool
                )
                self._memo[key] = readable
            mask = readable if mask is None else mask & readable
        return mask

    def provenance(self) -> dict[str, Scalar]:
        """The filters as recorded in `provenance.filters`."""
        out: dict[str, Scalar] = {}
        if self.current_only:
            out["status"] = "current"
        if self.permissions:
            out["access_groups"] = "question.user_groups"
        return out
