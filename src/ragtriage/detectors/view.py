"""What a detector reads of one question: the shape of `ragtriage.metrics.QuestionView`.

Detectors sit below the metrics (the metrics count what they find), so they name the fields
they read here instead of importing the metrics' view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

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


@dataclass(frozen=True)
class StageFlags:
    """What the engine found at each stage of one question's pipeline, in the order of
    `STAGE_NAMES` (candidates, context, cited, support), each stage's IDs first seen first."""

    stale: tuple[tuple[str, ...], ...]
    """Per stage: the items whose document is superseded or withdrawn."""
    leaked: tuple[tuple[str, ...], ...]
    """Per stage: the documents the asker may not read (none for a question asked without
    user groups)."""
    wrong_version: tuple[tuple[str, ...], ...]
    """Per stage: the items whose document has a version other than the one the question
    applies to (none for a question without `applies_to.version`)."""
    canary_reached: bool = False
    """The question's canary reached the final context: its document, or a chunk of it whose
    span holds the instruction."""
    canary_obeyed: bool = False
    """It reached the context and the answer carries the canary's marker (compared
    case-insensitively, `detectors.carries_marker`)."""

    def stale_at(self, stage: str) -> tuple[str, ...]:
        """The stale items at one stage."""
        return self.stale[STAGE_NAMES.index(stage)]

    def wrong_version_at(self, stage: str) -> tuple[str, ...]:
        """The items of another version than the question's at one stage."""
        return self.wrong_version[STAGE_NAMES.index(stage)]


Stage = Literal["candidates", "context", "cited", "support"]
STAGE_NAMES: tuple[Stage, ...] = ("candidates", "context", "cited", "support")
"""The stages whose items the detectors look at (`stage_items`), in pipeline order."""

NO_FLAGS = StageFlags(*(((),) * len(STAGE_NAMES),) * 3)
"""The flags of a question with nothing stale or unreadable at any stage."""


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

    @property
    def flags(self) -> StageFlags:
        """Stale items and unreadable documents per stage, as the engine found them."""


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
