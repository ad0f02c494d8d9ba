"""From diagnosis to action: for each failure stage, what to try first and what to hold fixed.

The rows for retrieval, ranking, version, completeness and refusal failures follow the
engineering hypotheses of the first seed article (section 5); the others are ragtriage's.
They are hypotheses to test on your own data, one change at a time, not promised gains.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._model import RunDiagnosis


@dataclass(frozen=True)
class NextAction:
    """What to try first for one diagnosis stage, and what to keep unchanged while trying."""

    stage: str
    """The diagnosis stage."""
    try_first: str
    """The first change worth testing."""
    hold_fixed: str
    """What to keep unchanged so the change can be measured."""


_ROWS: tuple[tuple[str, str, str], ...] = (
    (
        "permission_leak",
        "apply the asker's access groups as a retrieval filter, before ranking; treat any "
        "leak as a release blocker",
        "the question set, the snapshot and every other retrieval setting",
    ),
    (
        "retrieval_miss",
        "combine lexical and dense retrieval so exact identifiers (model numbers, error "
        "codes) are matched; then try query rewriting",
        "the question set, the generator and the final context budget",
    ),
    (
        "ranking_loss",
        "inspect the reranker and where the ranking is cut off",
        "the candidate set and the final k",
    ),
    (
        "truncation_loss",
        "inspect how the context is assembled and truncated after ranking (budget, order, "
        "de-duplication)",
        "the candidate set, the ranking and the final k",
    ),
    (
        "stale_evidence",
        "keep title, section and version with each chunk and filter by version or effective date",
        "the labelling rules and the generation prompt",
    ),
    (
        "injection_in_context",
        "treat retrieved text as data: delimit it in the prompt, and flag or strip "
        "instruction-like passages at indexing time",
        "the question set and the retrieval settings",
    ),
    (
        "injection_followed",
        "harden the generation prompt so instructions inside passages are never obeyed; "
        "re-run the canary questions",
        "the final context (same passages, same order) and the question set",
    ),
    (
        "unsupported_claim",
        "tighten the generation prompt and citation constraints (answer only from cited "
        "passages), or try another model",
        "the retrieval results and the final context",
    ),
    (
        "invalid_citation",
        "require a citation on every claim and allow only the IDs of the passages sent to the "
        "model (reject or repair other IDs before the answer is shown)",
        "the retrieval results and the final context",
    ),
    (
        "incomplete_answer",
        "adjust the answer constraints and add checks for the reference facts a complete "
        "answer states",
        "the retrieval results",
    ),
    (
        "missed_refusal",
        "add insufficient-evidence examples and explicit refusal rules",
        "the retrieval results; watch false refusals on answerable questions at the same time",
    ),
    (
        "false_refusal",
        "relax over-cautious refusal rules and show examples where the context does answer",
        "the retrieval results; watch correct refusals on unanswerable questions at the same time",
    ),
    (
        "needless_clarification",
        "narrow when the system asks back: only when the question is ambiguous given the context",
        "the retrieval results; watch correct clarifications at the same time",
    ),
    (
        "needless_escalation",
        "narrow the hand-off rules to questions the context cannot answer; add examples where "
        "it does",
        "the retrieval results; watch correct escalations at the same time",
    ),
    (
        "missed_clarification",
        "add examples of ambiguous questions and a rule to ask one clarifying question",
        "the retrieval results; watch needless clarifications at the same time",
    ),
    (
        "judge_uncertain",
        "have a person label the uncertain claims and facts, or calibrate the judge against "
        "human labels first",
        "the run itself: relabel, do not regenerate",
    ),
)

NEXT_ACTIONS: dict[str, NextAction] = {stage: NextAction(stage, a, b) for stage, a, b in _ROWS}
"""Next action by diagnosis stage (`ok` has none)."""


def next_action(stage: str) -> NextAction | None:
    """The next action for one stage; None for `ok` and for a stage without advice."""
    return NEXT_ACTIONS.get(stage)


def next_action_rows(stages: Iterable[str]) -> list[list[str]]:
    """Table rows `[stage, try first, hold fixed]` for renderers (table, Markdown, HTML): the
    next actions of several stages, in the given order, each stage once, unknown skipped."""
    actions = [NEXT_ACTIONS.get(stage) for stage in dict.fromkeys(stages)]
    return [[a.stage, a.try_first, a.hold_fixed] for a in actions if a is not None]


def diagnosis_next_actions(runs: Sequence[RunDiagnosis]) -> list[list[str]]:
    """Rows for every stage that is some question's primary stage, in pipeline order."""
    primaries = {q.primary for run in runs for q in run.questions}
    order = [s for run in runs for s in run.stages]
    return next_action_rows(s for s in dict.fromkeys(order) if s in primaries)
