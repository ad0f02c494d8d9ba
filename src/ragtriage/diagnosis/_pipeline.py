"""The stage pipeline: built-in stages in pipeline order, plus stages other modules register."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from functools import partial

from ..errors import InputError, found_text, option_problem
from ..metrics import QuestionView
from ._answer import (
    check_incomplete_answer,
    check_invalid_citation,
    check_judge_uncertain,
    check_missed_clarification,
    check_missed_refusal,
    check_needless,
    check_stale_evidence,
    check_unsupported_claim,
    explain_stale_evidence,
)
from ._model import Finding, QuestionDiagnosis
from ._retrieval import (
    check_permission_leak,
    check_ranking_loss,
    check_retrieval_miss,
    check_truncation_loss,
)
from ._stage_inputs import StageInputs

Check = Callable[[QuestionView], "Finding | None"]
"""A registered stage's check: one question's view in, a finding or None (the stage did not
fail) out. A stage the engine detects over its arrays has an explanation instead, called
only where the stage failed: its view in, its finding (proving IDs, reason) out."""

OK = "ok"
"""The verdict of a question where no stage failed; always last."""

_LOSSES: dict[str, Callable[[StageInputs], Finding]] = {
    "retrieval_miss": check_retrieval_miss,
    "ranking_loss": check_ranking_loss,
    "truncation_loss": check_truncation_loss,
}
_ANSWER: dict[str, Callable[[StageInputs], Finding]] = {
    "unsupported_claim": check_unsupported_claim,
    "invalid_citation": check_invalid_citation,
    "incomplete_answer": check_incomplete_answer,
    "missed_refusal": check_missed_refusal,
    "false_refusal": partial(check_needless, "false_refusal", "refused"),
    "needless_clarification": partial(check_needless, "needless_clarification", "clarified"),
    "needless_escalation": partial(check_needless, "needless_escalation", "escalated"),
    "missed_clarification": check_missed_clarification,
    "judge_uncertain": check_judge_uncertain,
}
_EXPLAIN = {**_LOSSES, "stale_evidence": explain_stale_evidence, **_ANSWER}
"""The explanations that read only `StageInputs`: every built-in stage but the permission
leak, which reads the whole view, and stale evidence of a version question (`VERSION_STAGES`)."""

_BUILTIN: tuple[tuple[str, Check], ...] = (
    ("permission_leak", check_permission_leak),
    *_LOSSES.items(),
    ("stale_evidence", check_stale_evidence),
    *_ANSWER.items(),
)

INPUT_STAGES = frozenset(_EXPLAIN)
"""The detected stages whose explanations read only `StageInputs`: a question whose failing
stages are all among them is explained without a view (`explain_inputs`), unless it is a
version question failing one of `VERSION_STAGES`."""

VERSION_STAGES = frozenset({"stale_evidence"})
"""The stages of `INPUT_STAGES` whose explanation of a version question (tagged
`version-conflict` or bound to a version by `applies_to`) reads its view: the versions its
answer used."""

STAGES: tuple[str, ...] = (*(name for name, _ in _BUILTIN), OK)
"""The built-in stages in pipeline order; `stage_order()` adds registered ones."""

_pipeline: list[tuple[str, Check]] = list(_BUILTIN)

_detected: set[str] = {name for name, _ in _BUILTIN}
"""The stages the engine finds failing over its arrays (`columnar`), whose functions only
explain; every other registered stage's check decides on each view."""


def register_stage(name: str, check: Check, after: str) -> None:
    """Insert a stage right after `after` (a known stage other than `ok`).

    Stages registered after the same stage keep their registration order. Raises ValueError
    for a name already in use or an unknown/invalid `after` (programming errors, not input).
    """
    known = [stage for stage, _ in _pipeline]
    if name in known or name == OK:
        raise ValueError(f"stage {name!r} is already registered")
    if after == OK or after not in known:
        expected = ", ".join(known)
        raise ValueError(f"cannot register {name!r} after {after!r}: expected one of {expected}")
    position = known.index(after) + 1
    # Keep earlier registrations after the same anchor ahead of this one.
    while position < len(_pipeline) and _pipeline[position][0] not in STAGES:
        position += 1
    _pipeline.insert(position, (name, check))


def register_detected(name: str, explain: Check, after: str) -> None:
    """`register_stage` for a stage the engine detects over its arrays: `explain` is called
    only on the views of the questions where it failed."""
    register_stage(name, explain, after)
    _detected.add(name)


def detected_stages() -> frozenset[str]:
    """The stages the engine detects over its arrays (their functions only explain)."""
    return frozenset(_detected)


def stage_order() -> tuple[str, ...]:
    """Every stage in pipeline order, registered ones included, `ok` last."""
    return (*(name for name, _ in _pipeline), OK)


def stage_names(names: Iterable[str]) -> tuple[str, ...]:
    """`names` as a stage condition (a single `str` is one name), each a stage of
    `stage_order()`: registered stages count once registered. Raises `InputError` naming every
    other one (`--stage`, as the command line calls it), so a mistyped stage is not read as
    a stage no question failed at."""
    given = (names,) if isinstance(names, str) else tuple(names)
    known = stage_order()
    unknown = [name for name in dict.fromkeys(given) if name not in known]
    if unknown:
        expected = f"one of {', '.join(known)}"
        raise InputError(
            [option_problem("--stage", expected, found_text(n)) for n in unknown]
        )
    return given


def diagnose_view(view: QuestionView, stages: Collection[str]) -> QuestionDiagnosis:
    """One question's verdict: the findings of `stages` in pipeline order, the first one the
    primary. `stages`: the detected stages the engine found failing for it (each explained,
    `detected_stages`) and the registered stages to check on its view.
    """
    findings = []
    for name, check in _pipeline:
        if name not in stages:
            continue
        finding = check(view)
        if finding is None:
            continue
        if finding.stage != name:
            raise ValueError(f"the check of stage {name!r} returned a {finding.stage!r} finding")
        findings.append(finding)
    question = view.question
    return _verdict(question.id, findings, view.tags, question.split)


def explain_inputs(
    inputs: StageInputs, stages: Collection[str], question_id: str, tags: tuple[str, ...],
    split: str,
) -> QuestionDiagnosis:
    """One question's verdict, as `diagnose_view` gives it, where every stage of `stages` (the
    stages the engine found failing for it) is one of `INPUT_STAGES`, and none of
    `VERSION_STAGES` for a version question: explained on what the engine read of it
    (`inputs`), without a view."""
    # `_EXPLAIN` is in pipeline order, and a registered stage is never one of its stages.
    findings = [explain(inputs) for name, explain in _EXPLAIN.items() if name in stages]
    return _verdict(question_id, findings, tags, split)


def _verdict(
    question_id: str, findings: list[Finding], tags: tuple[str, ...], split: str
) -> QuestionDiagnosis:
    if not findings:
        return QuestionDiagnosis(question_id, OK, (), (), tags, split)
    return QuestionDiagnosis(
        question_id,
        findings[0].stage,
        tuple([f.stage for f in findings[1:]]),
        tuple(findings),
        tags,
        split,
    )
