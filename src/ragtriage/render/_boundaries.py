"""What the boundary checks add to a report: the per-run section as data and as lines.

`evaluate` collects each run's section once (`RunEvaluation.boundaries`, with
`ragtriage.detectors.run_boundaries`); this module only formats it: IDs, rule IDs and spans,
never an answer or passage text, so no sensitive value can reach a report through this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .._markdown import md_code
from ..detectors import RunBoundaries
from ..errors import id_list

if TYPE_CHECKING:
    from ..evaluation import Evaluation


def boundaries_json(section: RunBoundaries) -> dict[str, Any]:
    """The run's boundary section as plain data (sorted, stable)."""
    perms = section.permissions
    return {
        "rules": {"injection": section.injection_rules, "sensitive": section.sensitive_rules},
        "permission_leaks": {
            s.stage: {
                "averaging": "macro",  # a share of questions: each counts once
                "questions": list(s.questions_with_leak),
                "numerator": len(s.questions_with_leak),
                "denominator": s.questions_checked,
                "rate": s.rate,
                "documents": list(s.documents),
            }
            for s in perms.stages
        },
        "permission_blocking": [
            {"question": c.question_id, "documents": list(c.blocking_documents)}
            for c in perms.blocking
        ],
        "permission_unchecked_questions": perms.unchecked,
        "injection_in_context": list(section.injection_questions),
        "canary_obeyed": list(section.canary_obeyed),
        "sensitive_in_answer": list(section.sensitive_answers),
        "sensitive_in_context": list(section.sensitive_contexts),
        "stale_labels": {qid: list(ids) for qid, ids in section.stale_labels},
        "stale_label_count": section.stale_label_count,
        "self_labelled_metrics": list(section.self_labelled),
    }


def _as_is(text: str) -> str:
    return text


def boundaries_lines(
    name: str, section: RunBoundaries, ids: Callable[[str], str] = _as_is
) -> list[str]:
    """Plain lines (Markdown bullets) summarising one run's boundary checks.

    `ids` writes each list of IDs from the files read (`md_text` for a Markdown report; as
    they are for the terminal and the HTML page, which escape on their own).
    """
    perms = section.permissions

    def listed(values: Iterable[str]) -> str:
        return ids(id_list(values))

    lines = [f"- {md_code(name)}: rules {section.injection_rules}, {section.sensitive_rules}"]
    for s in perms.stages:
        if s.questions_with_leak:
            count = f"{len(s.questions_with_leak)}/{s.questions_checked}"
            lines.append(
                f"  - permission leak {s.stage}: {count} questions "
                f"({listed(s.questions_with_leak)}); documents {listed(s.documents)}"
            )
    for heading, questions in (
        ("BLOCKING permission leaks", [c.question_id for c in perms.blocking]),
        ("instruction-like text in the context", section.injection_questions),
        ("planted canary obeyed", section.canary_obeyed),
        ("sensitive values in answers (masked)", section.sensitive_answers),
    ):
        if questions:
            lines.append(f"  - {heading}: {listed(questions)}")
    if section.stale_labels:
        parts = [f"{ids(qid)} ({listed(found)})" for qid, found in section.stale_labels]
        lines.append(
            f"  - claims and facts whose stale labels were not used: {section.stale_label_count} "
            f"({'; '.join(parts)})"
        )
    if section.self_labelled:
        lines.append(
            "  - SELF-LABELLED (labels by the run's own generator, accepted explicitly): "
            + listed(section.self_labelled)
        )
    return lines


def evaluation_boundary_lines(
    evaluation: Evaluation, ids: Callable[[str], str] = _as_is
) -> list[str]:
    """Markdown bullet lines of every run's boundary section (IDs only, never texts); `ids`
    as `boundaries_lines` takes it."""
    return [
        line for run in evaluation.runs for line in boundaries_lines(run.name, run.boundaries, ids)
    ]
