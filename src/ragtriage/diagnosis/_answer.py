"""Answer-side stages: stale versions, unsupported claims, invalid citations, missing facts,
outcomes, labels.

Stale evidence, unsupported claims, invalid citations and incomplete answers are judged for
answerable questions only: when a question should have been refused or clarified, answering
it at all is the failure (`missed_refusal` / `missed_clarification`), and that finding lists
the claims made.
"""

from __future__ import annotations

from ..detectors import stage_items
from ..errors import counted
from ..metrics import QuestionView
from ._model import Finding
from ._stage_inputs import StageInputs

VERSION_CONFLICT_TAG = "version-conflict"
"""A question with this tag (or with `applies_to.version`) is a version-conflict question."""


def _answered_answerable(view: StageInputs) -> bool:
    return view.question.answerability == "answerable" and view.outcome == "answered"


def is_version_question(view: QuestionView) -> bool:
    """True for a question tagged `version-conflict` or bound to a version by `applies_to`."""
    applies = view.question.applies_to
    return VERSION_CONFLICT_TAG in view.question.tags or (
        applies is not None and applies.version is not None
    )


def _wrong_version(view: QuestionView) -> tuple[tuple[str, str], ...]:
    """The supporting, then cited, items whose document has another version than the one the
    question applies to (the engine's `wrong_version` flags), each with its version."""
    flags = view.flags
    wrong = dict.fromkeys((*flags.wrong_version_at("support"), *flags.wrong_version_at("cited")))
    out: list[tuple[str, str]] = []
    for item in wrong:
        doc = view.index.document(item)
        out.append((item, doc.version if doc is not None and doc.version is not None else ""))
    return tuple(out)


def _stale_roles(view: StageInputs) -> tuple[list[str], list[str]]:
    """The reasons and IDs of the superseded or withdrawn items that support or are cited."""
    reasons: list[str] = []
    ids: list[str] = []
    roles: dict[str, list[str]] = {}
    for label, stage in (("supports a claim", "support"), ("is cited", "cited")):
        for item in view.flags.stale_at(stage):
            roles.setdefault(item, []).append(label)
    for item, labels in roles.items():
        reasons.append(f"{item} {_status(view, (item,))} {' and '.join(labels)}")
        ids.append(item)
    return reasons, ids


def explain_stale_evidence(view: StageInputs) -> Finding:
    """`check_stale_evidence` of a question that is not a version question
    (`is_version_question`): a superseded/withdrawn document supports or is cited."""
    reasons, ids = _stale_roles(view)
    return Finding("stale_evidence", tuple(dict.fromkeys(ids)), "; ".join(reasons))


def check_stale_evidence(view: QuestionView) -> Finding:
    """A superseded/withdrawn document supports or is cited; a version question used the old one."""
    if not is_version_question(view):
        return explain_stale_evidence(view)
    reasons, ids = _stale_roles(view)
    used = tuple(dict.fromkeys((*stage_items(view, "support"), *stage_items(view, "cited"))))
    wrong = _wrong_version(view)
    if wrong:
        wanted = view.question.applies_to.version if view.question.applies_to else None
        used_text = ", ".join(f"{item} ({version})" for item, version in wrong)
        reasons.append(f"the question applies to {wanted}; the answer used {used_text}")
        ids.extend(item for item, _ in wrong)
    in_context = view.flags.stale_at("context")
    required_present = any(at[2] is not None for at in view.evidence.first)
    if not used and in_context and not required_present:
        reasons.append(
            f"answered a version question citing nothing, from a context with "
            f"{', '.join(in_context)} {_status(view, in_context)} and no required evidence"
        )
        ids.extend(in_context)
    return Finding("stale_evidence", tuple(dict.fromkeys(ids)), "; ".join(reasons))


def _status(view: StageInputs, items: tuple[str, ...]) -> str:
    parts = []
    for item in items:
        doc = view.index.document(item)
        if doc is None:
            continue
        newer = view.index.superseded_by.get(doc.id, ())
        if doc.status == "superseded" and newer:
            parts.append(f"superseded by {', '.join(newer)}")
        else:
            parts.append(doc.status)
    return "(" + "; ".join(dict.fromkeys(parts)) + ")"


def check_unsupported_claim(view: StageInputs) -> Finding:
    """An answer to an answerable question with a claim labelled unsupported."""
    claims = view.claims or ()
    bad = tuple(c.claim_id for c in claims if c.state == "unsupported")
    return Finding(
        "unsupported_claim",
        bad,
        f"{len(bad)} of {len(claims)} claims not supported by the context: {', '.join(bad)}",
    )


def check_invalid_citation(view: StageInputs) -> Finding:
    """An answer to an answerable question with a claim that cites nothing, or cites an ID
    that was not in the final context (the `citation_validity` rule, per claim)."""
    bad: list[str] = []
    ids: list[str] = []
    for claim_id, outside in view.invalid_citations:
        if outside:
            bad.append(f"{claim_id} cites {', '.join(outside)}, not in the context")
        else:
            bad.append(f"{claim_id} cites nothing")
        ids.extend((claim_id, *outside))
    return Finding(
        "invalid_citation",
        tuple(dict.fromkeys(ids)),
        f"{len(bad)} of {len(view.claims or ())} claims without a valid citation: {'; '.join(bad)}",
    )


def check_incomplete_answer(view: StageInputs) -> Finding:
    """An answer to an answerable question that leaves reference facts uncovered."""
    missing = tuple(f.fact_id for f in view.facts if f.state == "not_covered")
    return Finding(
        "incomplete_answer",
        missing,
        f"{len(missing)} of {len(view.facts)} reference facts not covered: {', '.join(missing)}",
    )


def _claim_ids(view: StageInputs) -> tuple[str, ...]:
    return tuple(c.claim_id for c in view.claims or ())


def check_missed_refusal(view: StageInputs) -> Finding:
    """An unanswerable question that was answered (or met with a clarifying question)."""
    claims = _claim_ids(view)
    made = f" with {counted(len(claims), 'claim')}" if claims else ""
    why = f"the material does not answer it, yet the outcome is {view.outcome}{made}"
    return Finding("missed_refusal", claims, why)


def check_needless(stage: str, outcome: str, view: StageInputs) -> Finding:
    """An answerable question stopped short (`outcome`: refused, clarified, escalated)
    although its context held all required evidence; the finding is of `stage`."""
    # Only when the context held every required group: stopping short with evidence missing
    # is the right call for the generator, and the retrieval stage already names the loss.
    first = view.evidence.first
    found = tuple(dict.fromkeys(view.context[at[2]] for at in first if at[2] is not None))
    groups = len(first)
    if groups == 1:
        held = "the context held the required evidence"
    else:
        held = f"the context held all {groups} required evidence groups"
    return Finding(stage, found, f"{outcome} although {held}")


def check_missed_clarification(view: StageInputs) -> Finding:
    """A question that needed clarification but was answered or refused."""
    return Finding(
        "missed_clarification",
        _claim_ids(view),
        f"the question needs clarification, yet the outcome is {view.outcome}",
    )


def check_judge_uncertain(view: StageInputs) -> Finding:
    """A claim or counted fact whose labels say `cannot_judge` (or that has no label)."""
    uncertain = [c.claim_id for c in view.claims or () if c.state == "cannot_judge"]
    unlabelled = [c.claim_id for c in view.claims or () if c.state == "unlabelled"]
    if _answered_answerable(view):
        uncertain += [f.fact_id for f in view.facts if f.state == "cannot_judge"]
        unlabelled += [f.fact_id for f in view.facts if f.state == "unlabelled"]
    parts = []
    if uncertain:
        parts.append(f"cannot judge {', '.join(uncertain)}")
    if unlabelled:
        parts.append(f"no label for {', '.join(unlabelled)}")
    return Finding("judge_uncertain", (*uncertain, *unlabelled), "; ".join(parts))
