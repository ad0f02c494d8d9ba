"""What a detector reads of one question: the shape of `ragtriage.metrics.QuestionView`.

Detectors sit below the metrics (the metrics count what they find), so they name the fields
they read here instead of importing the metrics' view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..loading import SnapshotIndex
    from ..schemas import Question


class ClaimRead(Protocol):
    """The fields of a scored claim that the detectors read."""

    @property
    def citations(self) -> tuple[str, ...]:
        """Cited IDs."""

    @property
    def state(self) -> str:
        """The verdict that counts (`supported`, `unsupported`, ...)."""

    @property
    def supported_by(self) -> tuple[str, ...]:
        """Supporting context IDs from the counted label."""


class DetectorView(Protocol):
    """One question and one run's result for it, resolved for scoring."""

    @property
    def question(self) -> Question:
        """The question."""

    @property
    def answer(self) -> str | None:
        """The result's answer (None for a retrieval-only run)."""

    @property
    def context_texts(self) -> tuple[tuple[str, str], ...]:
        """(ID, text) of each final-context item: the recorded text, else the snapshot's
        (`detectors.texts_of`)."""

    @property
    def index(self) -> SnapshotIndex:
        """The snapshot look-ups."""

    @property
    def candidates(self) -> tuple[str, ...]:
        """First-stage ranking IDs."""

    @property
    def context(self) -> tuple[str, ...]:
        """IDs of the final context."""

    @property
    def claims(self) -> tuple[ClaimRead, ...] | None:
        """Claims with counted labels; `None` when the run has no extracted claims."""

    @property
    def stale_labels(self) -> tuple[str, ...]:
        """Claim and fact IDs with a label made against another context (not used)."""


def stage_items(view: DetectorView, stage: str) -> tuple[str, ...]:
    """IDs seen at a stage: `candidates`, `context`, `cited` or `support`.

    One definition for the permission checks and the stale-evidence metrics.
    """
    if stage == "candidates":
        return view.candidates
    if stage == "context":
        return view.context
    claims = view.claims or ()
    if stage == "cited":
        return tuple(dict.fromkeys(i for c in claims for i in c.citations))
    return tuple(dict.fromkeys(i for c in claims if c.state == "supported" for i in c.supported_by))
