"""Permissions: documents the asker may not read, at each stage of a question's pipeline.

A question's `user_groups` name the asker's groups; a document's `access_groups` name who may
read it (`SnapshotIndex.may_read`). A question without `user_groups` is asked without a user
and is not checked. A leak into the final context or into the answer (cited, or used as
support for a claim) is blocking: a gate fails on it regardless of any average.
"""

from __future__ import annotations

from dataclasses import dataclass

from .view import STAGE_NAMES, DetectorView, Stage

PERMISSION_STAGES: tuple[Stage, ...] = STAGE_NAMES
"""Where unreadable documents are looked for, in pipeline order."""
BLOCKING_STAGES: tuple[Stage, ...] = ("context", "cited", "support")
"""Stages at which a leak is blocking: it reached the model or the answer."""


@dataclass(frozen=True)
class PermissionCheck:
    """One question's permission check: unreadable documents per stage."""

    question_id: str
    """The question."""
    checked: bool
    """False when the question names no user groups (nothing to check)."""
    leaks: tuple[tuple[Stage, tuple[str, ...]], ...]
    """(stage, unreadable document IDs) for every stage, in pipeline order."""

    def at(self, stage: Stage) -> tuple[str, ...]:
        """The unreadable document IDs at one stage."""
        for at, ids in self.leaks:
            if at == stage:
                return ids
        return ()

    @property
    def blocking(self) -> bool:
        """True when an unreadable document reached the context or the answer."""
        return bool(self.blocking_documents)

    @property
    def blocking_documents(self) -> tuple[str, ...]:
        """The unreadable document IDs that reached the context or the answer, first seen first
        (the `permission_leak` stage's proving IDs; a candidate-only one is not among them)."""
        return tuple(dict.fromkeys(i for stage in BLOCKING_STAGES for i in self.at(stage)))

    @property
    def leaked(self) -> tuple[str, ...]:
        """Every unreadable document ID at any stage, first seen first."""
        return tuple(dict.fromkeys(i for _, ids in self.leaks for i in ids))


def check_permissions(view: DetectorView) -> PermissionCheck:
    """Check one question's candidates, context, citations and support against its asker."""
    checked = view.question.user_groups is not None
    # The documents at each stage the asker may not read, as the engine found them.
    leaks = tuple(zip(PERMISSION_STAGES, view.flags.leaked, strict=True))
    return PermissionCheck(view.question.id, checked, leaks)


@dataclass(frozen=True)
class StageLeaks:
    """Aggregate of one stage over a run."""

    stage: Stage
    """The stage."""
    questions_with_leak: tuple[str, ...]
    """Questions with at least one unreadable document at this stage."""
    questions_checked: int
    """Questions with user groups and at least one item at this stage (the denominator)."""
    documents: tuple[str, ...]
    """Every unreadable document ID seen at this stage, sorted."""

    @property
    def rate(self) -> float | None:
        """Leaking questions / checked questions; None when nothing was checked."""
        if not self.questions_checked:
            return None
        return len(self.questions_with_leak) / self.questions_checked


@dataclass(frozen=True)
class PermissionSummary:
    """Permission leaks of a run: per stage, and the blocking questions."""

    stages: tuple[StageLeaks, ...]
    """One entry per stage, in pipeline order."""
    blocking: tuple[PermissionCheck, ...]
    """Questions whose leak reached the context or the answer."""
    unchecked: int
    """Questions asked without user groups (not checked)."""

    def stage(self, stage: Stage) -> StageLeaks:
        """The aggregate of one stage."""
        return next(s for s in self.stages if s.stage == stage)
