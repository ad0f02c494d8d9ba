"""The boundary checks of one question and of one run: IDs only, never texts.

`boundary_details` lists, per question, the IDs behind each check; `boundary_questions`
collects, a chunk of views at a time, the questions each check names (flagged contexts,
obeyed canaries, sensitive values, stale labels); `run_boundaries` joins those parts and the
run's permission section (found by the engine over the run's arrays) into the run's section,
which `evaluate` computes once per run (`RunEvaluation.boundaries`).
Renderers format these (`ragtriage.render`); nothing here prints an answer or passage text,
so no sensitive value can reach a report through this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .injection import default_injection_rules, flag_context
from .permissions import PERMISSION_STAGES, PermissionSummary, check_permissions
from .sensitive import ContextFindings, SensitiveFinding, default_sensitive_config, scan_view
from .view import DetectorView


def boundary_details(
    view: DetectorView,
    *,
    flagged_context: tuple[str, ...] | None = None,
    sensitive_context: ContextFindings | None = None,
    sensitive_answer: tuple[SensitiveFinding, ...] | None = None,
) -> dict[str, tuple[str, ...]]:
    """Per-question IDs behind the boundary checks (keys present only when non-empty).

    `permission_leak_<stage>`: unreadable document IDs; `injection_flagged_context`: flagged
    context items; `canary_obeyed`: the canary's document when the answer obeyed it;
    `sensitive_answer` / `sensitive_context`: findings as `DETECTOR[start:end]` spans
    (context ones prefixed by the item ID); `stale_labels`: claim and fact IDs whose label
    was made against another context and was not used.

    `flagged_context`: the IDs `flag_context` gives for this view, when the caller already
    scanned the context texts (the engine's scan of every text, once); None: scanned
    here. `sensitive_context`: likewise, the sensitive findings of the context's texts
    (`scan_view`'s `context`); `sensitive_answer`, the answer's (`scan_view`'s `answer`).
    """
    out: dict[str, tuple[str, ...]] = {}
    check = check_permissions(view)
    for stage in PERMISSION_STAGES:
        if check.at(stage):
            out[f"permission_leak_{stage}"] = check.at(stage)
    if flagged_context is None:
        flagged_context = tuple(item.item_id for item in flag_context(view))
    if flagged_context:
        out["injection_flagged_context"] = flagged_context
    canary = view.question.canary
    if canary is not None and view.flags.canary_obeyed:
        out["canary_obeyed"] = (canary.document_id,)
    scan = scan_view(view, context=sensitive_context, answer=sensitive_answer)
    if scan.answer:
        out["sensitive_answer"] = tuple(f.label() for f in scan.answer)
    if scan.context:
        out["sensitive_context"] = tuple(
            f"{item}:{f.label()}" for item, found in scan.context for f in found
        )
    if view.stale_labels:
        out["stale_labels"] = view.stale_labels
    return out


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
    views: Sequence[DetectorView],
    details: Sequence[Mapping[str, tuple[str, ...]]] | None = None,
) -> BoundaryQuestions:
    """The questions among `views` that each boundary check names.

    `details` are the views' per-question details when already computed (each holding what
    `boundary_details` returns for its view); by default they are computed here.
    """
    injection: list[str] = []
    obeyed: list[str] = []
    answers: list[str] = []
    contexts: list[str] = []
    stale: list[tuple[str, tuple[str, ...]]] = []
    found = [boundary_details(view) for view in views] if details is None else details
    for view, shown in zip(views, found, strict=True):
        qid = view.question.id
        if "injection_flagged_context" in shown:
            injection.append(qid)
        if "canary_obeyed" in shown:
            obeyed.append(qid)
        if "sensitive_answer" in shown:
            answers.append(qid)
        if "sensitive_context" in shown:
            contexts.append(qid)
        if view.stale_labels:
            stale.append((qid, view.stale_labels))
    return BoundaryQuestions(
        tuple(injection), tuple(obeyed), tuple(answers), tuple(contexts), tuple(stale)
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
