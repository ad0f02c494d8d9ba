"""Diagnosis as JSON data, a terminal table (breakdown first, worst slice first) and Markdown."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from .._console import text_console, text_table
from .._markdown import md_lines, md_table, md_text
from ..diagnosis import (
    Breakdown,
    QuestionDiagnosis,
    RunDiagnosis,
    SliceBreakdown,
    diagnosis_next_actions,
)
from ..errors import id_list
from ..evaluation import ALL_QUESTIONS, Evaluation, no_result_note
from ..loading import report_head

NEXT_ACTION_HEADER = ["stage", "try first", "hold fixed"]
"""Column names of the next-actions table (of `diagnosis_next_actions`' rows)."""

QUESTION_LIMIT = 50
"""Per-question rows are printed up to this many failing questions; JSON always has them all."""


def question_diagnosis_json(entry: QuestionDiagnosis) -> dict[str, Any]:
    """`{primary, secondary, findings: [{stage, ids, why}]}` for one question (its tuples as
    they are: JSON lists)."""
    return {
        "primary": entry.primary,
        "secondary": entry.secondary,
        "findings": [{"stage": f.stage, "ids": f.ids, "why": f.why} for f in entry.findings],
    }


def slice_json(part: SliceBreakdown) -> dict[str, Any]:
    """One slice: question count, failing count and rate, and every stage's counts and rates
    (each a share of questions: `macro`, every question counts once)."""
    return {
        "questions": part.questions,
        "failing": {
            "averaging": "macro",
            "numerator": part.failing,
            "denominator": part.questions,
            "rate": part.failure_rate,
        },
        "stages": {
            c.stage: {
                "averaging": "macro",
                "primary": c.primary,
                "present": c.present,
                "denominator": c.questions,
                "primary_rate": c.primary_rate,
                "present_rate": c.present_rate,
            }
            for c in part.stages
        },
    }


def breakdown_json(breakdown: Breakdown) -> dict[str, Any]:
    """`{all, tags: {tag:NAME: ...}, splits: {split:NAME: ...}, worst_first: [keys]}`."""
    return {
        "all": slice_json(breakdown.overall),
        "tags": {part.key: slice_json(part) for part in breakdown.by_tag},
        "splits": {part.key: slice_json(part) for part in breakdown.by_split},
        "worst_first": [part.key for part in breakdown.worst_first()],
    }


def diagnosis_report_json(evaluation: Evaluation) -> dict[str, Any]:
    """The whole `diagnose --format json` document: tool, inputs, selection and every run's
    diagnosis (as the evaluation carries them)."""
    from .._version import __version__

    return {
        **report_head(__version__, evaluation.sources),
        "selection": evaluation.selection,
        "runs": [run_diagnosis_json(run.diagnosis) for run in evaluation.runs],
    }


def run_diagnosis_json(run: RunDiagnosis) -> dict[str, Any]:
    """One run's diagnosis: settings, breakdown and per-question verdicts."""
    return {
        "name": run.run,
        "k": run.k,
        "k_used": run.k_used,
        "no_result": list(run.no_result),
        "evidence_level": run.evidence_level,
        "stages": list(run.stages),
        "breakdown": breakdown_json(run.breakdown),
        "questions": [
            {"id": entry.question_id, **question_diagnosis_json(entry)} for entry in run.questions
        ],
    }


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate:.0%}"


def _top_stages(part: SliceBreakdown) -> str:
    found = sorted(
        (c for c in part.stages if c.primary and c.stage != "ok"),
        key=lambda c: (-c.primary, part.stages.index(c)),
    )
    return ", ".join(f"{c.stage} {c.primary}" for c in found) or "-"


def slice_rows(run: RunDiagnosis) -> list[list[str]]:
    """Rows `slice, questions, failing (rate), primary stages`: overall, then worst slice first."""
    return [
        [
            part.key,
            str(part.questions),
            f"{part.failing} ({_pct(part.failure_rate)})",
            _top_stages(part),
        ]
        for part in (run.breakdown.overall, *run.breakdown.worst_first())
    ]


def stage_rows(run: RunDiagnosis) -> list[list[str]]:
    """Rows `stage, primary (rate), present (rate)` for stages that occurred, pipeline order."""
    return [
        [
            c.stage,
            f"{c.primary}/{c.questions} ({_pct(c.primary_rate)})",
            f"{c.present}/{c.questions} ({_pct(c.present_rate)})",
        ]
        for c in run.breakdown.overall.stages
        if c.present
    ]


def question_rows(run: RunDiagnosis) -> list[list[str]]:
    """Rows `question, primary, secondary, proving IDs, why` of the failing questions."""
    rows = []
    for entry in run.questions:
        if entry.primary == "ok":
            continue
        first = entry.findings[0] if entry.findings else None
        rows.append(
            [
                entry.question_id,
                entry.primary,
                ", ".join(entry.secondary) or "-",
                id_list(first.ids) if first else "-",
                first.why if first else "-",
            ]
        )
    return rows


SLICE_HEADER = ["slice", "questions", "failing", "primary stages"]
"""Column names of `slice_rows`."""
_STAGE_HEADER = ["stage", "primary", "present (primary or secondary)"]
_QUESTION_HEADER = ["question", "primary", "secondary", "proving IDs", "why (primary)"]


def render_diagnosis_table(
    runs: Sequence[RunDiagnosis], width: int = 120, selection: str = ALL_QUESTIONS
) -> str:
    """The terminal report: the selection (when some questions were asked for), then per run
    the slice breakdown (worst first), stages, failing questions."""
    buffer = io.StringIO()
    console = text_console(buffer, width)
    if selection != ALL_QUESTIONS:
        console.print(f"note: only the questions selected by {selection} are diagnosed")
    for run in runs:
        k = f"{run.cutoff}, " if run.cutoff is not None else ""
        note = no_result_note(run.run, run.no_result)
        if note is not None:
            console.print(f"note: {note}")
        if not run.questions:
            console.print(f"{run.run}: no question matches the selection")
            continue
        title = (
            f"{run.run} ({k}evidence by {run.evidence_level}): "
            "failing questions per slice, worst first"
        )
        console.print(text_table(title, SLICE_HEADER, slice_rows(run)))
        console.print(text_table(f"{run.run}: stages", _STAGE_HEADER, stage_rows(run)))
        rows = question_rows(run)
        if len(rows) > QUESTION_LIMIT:
            console.print(
                f"{run.run}: {len(rows)} failing questions; every verdict is in --format json"
            )
        elif rows:
            title = f"{run.run}: failing questions"
            console.print(text_table(title, _QUESTION_HEADER, rows))
    actions = diagnosis_next_actions(runs)
    if actions:
        title = "next actions for the primary stages found"
        console.print(text_table(title, NEXT_ACTION_HEADER, actions))
    return buffer.getvalue()


def render_diagnosis_markdown(
    runs: Sequence[RunDiagnosis], selection: str = ALL_QUESTIONS
) -> str:
    """A paste-ready pull-request summary: one line per run, then its tables."""
    lines = ["## ragtriage diagnosis", ""]
    for run in runs:
        overall = run.breakdown.overall
        lines.append(
            f"- **{md_text(run.run)}**: {overall.failing} of {overall.questions} questions fail "
            f"({_pct(overall.failure_rate)}); primary stages: {_top_stages(overall)}"
            + (f"; {len(run.no_result)} with no result" if run.no_result else "")
        )
    lines += ["", f"Questions: {md_text(selection)}. Rates are over each slice's questions.", ""]
    for run in runs:
        k = f"{run.cutoff}, " if run.cutoff is not None else ""
        lines += [f"### {md_text(run.run)} ({k}evidence matched by {run.evidence_level})", ""]
        note = no_result_note(run.run, run.no_result)
        if note is not None:
            lines += [f"Note: {md_text(note)}", ""]
        if not run.questions:
            lines += ["No question matches the selection.", ""]
            continue
        lines += [*md_table(SLICE_HEADER, slice_rows(run)), ""]
        lines += [*md_table(_STAGE_HEADER, stage_rows(run)), ""]
        rows = question_rows(run)
        if rows:
            lines += ["<details><summary>Failing questions</summary>", ""]
            lines += md_table(_QUESTION_HEADER, rows[:QUESTION_LIMIT])
            if len(rows) > QUESTION_LIMIT:
                lines += ["", f"... and {len(rows) - QUESTION_LIMIT} more (see --format json)."]
            lines += ["", "</details>", ""]
    actions = diagnosis_next_actions(runs)
    if actions:
        lines += ["### Next actions for the primary stages found", ""]
        lines += [*md_table(NEXT_ACTION_HEADER, actions), ""]
    return md_lines(lines).rstrip("\n") + "\n"
