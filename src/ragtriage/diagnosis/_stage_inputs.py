"""What the explanations of most detected stages read of a question and its result.

A question's view (`metrics.QuestionView`) has all of it; the engine also hands these
explanations a row of its arrays with only this (`columnar`), so a question whose failing
stages are all among `diagnosis.INPUT_STAGES` is explained without a view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..detectors import StageFlags
    from ..loading import SnapshotIndex


class GroupInputs(Protocol):
    """A required evidence group."""

    @property
    def any_of(self) -> Sequence[str]: ...
    @property
    def label(self) -> str | None: ...


class QuestionInputs(Protocol):
    """A question: its answerability and required evidence."""

    @property
    def answerability(self) -> str: ...
    @property
    def required_evidence(self) -> Sequence[GroupInputs]: ...


class ClaimInputs(Protocol):
    """A claim: its ID and the state of its counted label."""

    @property
    def claim_id(self) -> str: ...
    @property
    def state(self) -> str: ...


class FactInputs(Protocol):
    """A reference fact: its ID and the state of its counted coverage label."""

    @property
    def fact_id(self) -> str: ...
    @property
    def state(self) -> str: ...


class EvidenceInputs(Protocol):
    """Where the required groups are satisfied (`metrics.EvidenceFound.first`)."""

    @property
    def first(self) -> Sequence[tuple[int | None, int | None, int | None]]: ...


class StageInputs(Protocol):
    """One question's result as the explanations of `INPUT_STAGES` read it."""

    @property
    def question(self) -> QuestionInputs: ...
    @property
    def outcome(self) -> str | None: ...
    @property
    def k(self) -> int | None: ...
    @property
    def candidates(self) -> Sequence[str]: ...
    @property
    def reranked(self) -> Sequence[str] | None: ...
    @property
    def ranking(self) -> Sequence[str]: ...
    @property
    def context(self) -> Sequence[str]: ...
    @property
    def context_derived(self) -> bool: ...
    @property
    def evidence(self) -> EvidenceInputs: ...
    @property
    def claims(self) -> Sequence[ClaimInputs] | None: ...
    @property
    def facts(self) -> Sequence[FactInputs]: ...
    @property
    def invalid_citations(self) -> Sequence[tuple[str, Sequence[str]]]: ...
    @property
    def flags(self) -> StageFlags: ...
    @property
    def index(self) -> SnapshotIndex: ...

