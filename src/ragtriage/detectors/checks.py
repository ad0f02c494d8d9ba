"""The boundary checks of one question and of one run: IDs only, never texts.

`boundary_questions` collects, a chunk of questions at a time, the questions each check
names (flagged contexts, obeyed canaries, sensitive values, stale labels) from their details
(found by the engine over the run's arrays); `run_boundaries` joins those parts and the
run's permission section (found by the engine over the run's arrays) into the run's section,
which `evaluate` computes once per run (`RunEvaluation.boundaries`).
Renderers format these (`ragtriage.render`); nothing here prints an answer or passage text,
so no sensitive value can reach a report through this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .injection import default_injection_rules
from .permissions import PermissionSummary
from .sensitive import default_sensitive_config


@dataclass(frozen=True)
class RunBoundaries:
    """The boundary section of one run's report."""

    injection_rules: str
    """Version of the injection rule set used."""
    sensitive_rules: str
    """Version of the sensitive-content detector set used."""
    permissions: PermissionSummary
    """Permission leaks per stage and the blocking questions."""
    injection_questions: tuple[str, ...]
    """Questions whose final context holds flagged text."""
    canary_obeyed: tuple[str, ...]
    """Questions whose answer obeyed a planted canary."""
    sensitive_answers: tuple[str, ...]
    """Questions whose answer holds a sensitive value."""
    sensitive_contexts: tuple[str, ...]
    """Questions whose final context holds a sensitive value."""
    stale_labels: tuple[tuple[str, tuple[str, ...]], ...]
    """(question, claim/fact IDs) with stale labels that were not used."""
    self_labelled: tuple[str, ...]
    """Metrics computed from labels made by the run's own generator (accepted explicitly)."""

    @property
    def stale_label_count(self) -> int:
        """Claims and facts whose stale labels were left out."""
        return sum(len(ids) for _, ids in self.stale_labels)


@dataclass(frozen=True)
class BoundaryQuestions:
    """The questions of some consecutive questions of a run that each boundary check names
    (in evaluation-set order): a part of `RunBoundaries`, collected a chunk of views at a
    time (`boundary_questions`)."""

    injection: tuple[str, ...]
    """Questions whose final context holds flagged text."""
    canary_obeyed: tuple[str, ...]
    """Questions whose answer obeyed a planted canary."""
    sensitive_answers: tuple[str, ...]
    """Questions whose answer holds a sensitive value."""
    sensitive_contexts: tuple[str, ...]
    """Questions whose final context holds a sensitive value."""
    stale_labels: tuple[tuple[str, tuple[str, ...]], ...]
    """(question, claim/fact IDs) with stale labels that were not used."""


def boundary_questions(
    question_ids: Sequence[str], details: Sequence[Mapping[str, tuple[str, ...]]]
) -> BoundaryQuestions:
    """The questions among `question_ids` that each boundary check names, from their
    per-question details (`QuestionRecord.details`, in the same order)."""
    shown = list(zip(question_ids, details, strict=True))

    def named(key: str) -> tuple[str, ...]:
        return tuple([qid for qid, found in shown if key in found])

    return BoundaryQuestions(
        named("injection_flagged_context"),
        named("canary_obeyed"),
        named("sensitive_answer"),
        named("sensitive_context"),
        tuple([(qid, found["stale_labels"]) for qid, found in shown if found.get("stale_labels")]),
    )


def run_boundaries(
    parts: Sequence[BoundaryQuestions],
    permissions: PermissionSummary,
    self_labelled: Sequence[str] = (),
) -> RunBoundaries:
    """The boundary section of one run: the questions each check names, from the parts of
    its questions in order, and its permission section (the engine's, found over the run's
    arrays)."""
    return RunBoundaries(
        injection_rules=default_injection_rules().version,
        sensitive_rules=default_sensitive_config().version,
        permissions=permissions,
        injection_questions=tuple(q for part in parts for q in part.injection),
        canary_obeyed=tuple(q for part in parts for q in part.canary_obeyed),
        sensitive_answers=tuple(q for part in parts for q in part.sensitive_answers),
        sensitive_contexts=tuple(q for part in parts for q in part.sensitive_contexts),
        stale_labels=tuple(s for part in parts for s in part.stale_labels),
        self_labelled=tuple(self_labelled),
    )
