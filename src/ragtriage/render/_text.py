"""Human-readable renderings of an evaluation: a rich terminal table and Markdown."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from .._markdown import md_table
from ..boundaries.report import (
    NEXT_ACTION_HEADER,
    evaluation_boundary_lines,
    evaluation_next_actions,
)
from ..calibration import LabelSources
from ..diagnosis import diagnose_run, slice_rows
from ..evaluation import Evaluation
from ..metrics import Aggregate

_DIAGNOSIS_HEADER = ["slice", "questions", "failing", "primary stages"]

PER_QUESTION_LIMIT = 50
"""Per-question tables are printed up to this many questions; JSON always has them all."""

_QUESTION_COLUMNS = (
    "evidence_recall",
    "fact_coverage",
    "claim_support",
    "citation_validity",
    "correct_refusal",
    "false_refusal",
)


def fmt_number(value: float) -> str:
    """A count or sum as short text: 3, 1.5, 0.333."""
    return str(int(value)) if float(value).is_integer() else f"{value:.3g}"


def fmt_aggregate(agg: Aggregate) -> str:
    """`0.75 (3/4)`, or `n/a (0/0)` for an empty denominator."""
    value = "n/a" if agg.value is None else f"{agg.value:.2f}"
    return f"{value} ({fmt_number(agg.numerator)}/{fmt_number(agg.denominator)})"


def fmt_cannot_judge(agg: Aggregate) -> str:
    """` · 2 cannot judge` when items labelled so were left out of the aggregate, else ``."""
    return f" · {agg.cannot_judge} cannot judge" if agg.cannot_judge else ""


def fmt_value(value: float | bool | None) -> str:
    """A per-question value: 0.50, yes/no, or n/a."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:.2f}"


def label_mark(sources: LabelSources | None) -> str:
    """` · judge-labelled, ...` for a measure whose counted labels include judge labels."""
    mark = None if sources is None else sources.mark()
    return "" if mark is None else f" · {mark}"


def _summary_rows(evaluation: Evaluation) -> list[list[str]]:
    rows = []
    # Measures counted from judge labels say so, and whether a calibration record vouches.
    for m in evaluation.measures:
        row = [m.name, f"{m.spec.averaging}, {m.spec.direction} is better"]
        for run in evaluation.runs:
            agg = run.summary[m.name]
            row.append(
                fmt_aggregate(agg)
                + (f" · {agg.not_applicable} n/a" if agg.not_applicable else "")
                + fmt_cannot_judge(agg)
                + (" · SELF-LABELLED" if m.name in run.self_labelled else "")
                + label_mark(run.label_sources.get(m.name))
            )
        rows.append(row)
    return rows


def _question_rows(evaluation: Evaluation, run_index: int) -> tuple[list[str], list[list[str]]]:
    run = evaluation.runs[run_index]
    names = [m for m in evaluation.measures if m.name in _QUESTION_COLUMNS]
    header = ["question", "outcome", *(m.name for m in names), "diagnosis"]
    verdicts = {v.question_id: v for v in diagnose_run(run).questions}
    rows = []
    for rec in run.questions:
        values = []
        for m in names:
            score = rec.scores[m.name]
            if score is None:
                values.append("n/a")
            elif m.spec.kind == "boolean":
                values.append(fmt_value(bool(score.numerator)))
            else:
                values.append(fmt_value(score.value))
        verdict = verdicts[rec.question_id]
        more = f" (+{', '.join(verdict.secondary)})" if verdict.secondary else ""
        rows.append([rec.question_id, rec.outcome or "-", *values, verdict.primary + more])
    return header, rows


def render_table(evaluation: Evaluation, width: int = 200) -> str:
    """The terminal report: aggregates with denominators, then per-question rows."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    table = Table(title="ragtriage evaluation: value (numerator/denominator)")
    table.add_column("metric")
    table.add_column("averaging")
    for run in evaluation.runs:
        table.add_column(f"{run.name} (k={run.k})")
    for row in _summary_rows(evaluation):
        table.add_row(*row)
    console.print(table)
    for note in evaluation.calibration_notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    for run in evaluation.runs:
        dtable = Table(title=f"{run.name}: failing questions per slice, worst first")
        for name in _DIAGNOSIS_HEADER:
            dtable.add_column(name, overflow="fold")
        for row in slice_rows(diagnose_run(run)):
            dtable.add_row(*row)
        console.print(dtable)
    actions = evaluation_next_actions(evaluation)
    if actions:
        atable = Table(title="next actions for the primary stages found")
        for name in NEXT_ACTION_HEADER:
            atable.add_column(name, overflow="fold")
        for row in actions:
            atable.add_row(*row)
        console.print(atable)
    console.print("boundaries (IDs only; sensitive values are never printed):")
    for line in evaluation_boundary_lines(evaluation):
        console.print(line, markup=False, highlight=False)
    for index, run in enumerate(evaluation.runs):
        if len(run.questions) > PER_QUESTION_LIMIT:
            console.print(
                f"{run.name}: {len(run.questions)} questions; per-question values in --format json"
            )
            continue
        header, rows = _question_rows(evaluation, index)
        qtable = Table(title=f"{run.name}: per question")
        for name in header:
            qtable.add_column(name, overflow="fold")
        for row in rows:
            qtable.add_row(*row)
        console.print(qtable)
    return buffer.getvalue()


def render_markdown(evaluation: Evaluation) -> str:
    """A paste-ready Markdown summary for a pull request."""
    lines = ["## ragtriage evaluation", ""]
    runs = ", ".join(
        f"`{r.name}` (k={r.k}, evidence matched by {r.evidence_level})" for r in evaluation.runs
    )
    lines += [
        f"Runs: {runs}. Values are value (numerator/denominator); n/a means an empty denominator.",
        "",
    ]
    header = ["metric", "averaging", *(r.name for r in evaluation.runs)]
    lines += md_table(header, _summary_rows(evaluation))
    if evaluation.calibration_notes:
        lines += ["", *(f"Note: {note}" for note in evaluation.calibration_notes)]
    for run in evaluation.runs:
        lines += ["", f"### {run.name}: failing questions per slice, worst first", ""]
        lines += md_table(_DIAGNOSIS_HEADER, slice_rows(diagnose_run(run)))
    actions = evaluation_next_actions(evaluation)
    if actions:
        lines += ["", "### Next actions for the primary stages found", ""]
        lines += md_table(NEXT_ACTION_HEADER, actions)
    lines += ["", "### Boundaries", "", *evaluation_boundary_lines(evaluation)]
    for index, run in enumerate(evaluation.runs):
        if len(run.questions) > PER_QUESTION_LIMIT:
            continue
        lines += ["", f"### {run.name}: per question", ""]
        qheader, rows = _question_rows(evaluation, index)
        lines += md_table(qheader, rows)
    return "\n".join(lines) + "\n"
