"""Human-readable renderings of an evaluation: a rich terminal table and Markdown."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence

from rich.console import Console

from .._console import text_console, text_table
from .._markdown import md_code, md_lines, md_table, md_text
from ..calibration import LabelSources
from ..diagnosis import diagnosis_next_actions
from ..evaluation import ALL_QUESTIONS, NO_RESULT, Evaluation, no_result_note
from ..metrics import (
    Aggregate,
    Measure,
    fraction_text,
    not_applicable_everywhere,
    not_applicable_line,
    value_text,
)
from ._boundaries import evaluation_boundary_lines
from ._diagnosis import NEXT_ACTION_HEADER, SLICE_HEADER, slice_rows
from ._json import score_json
from ._table import TABLE_MEASURES

PER_QUESTION_LIMIT = 50
"""Per-question tables are printed up to this many questions; JSON always has them all."""


def fmt_aggregate(agg: Aggregate) -> str:
    """`0.75 (3/4)`, or `n/a (0/0)` for an empty denominator."""
    return f"{value_text(agg.value, 2)} ({fraction_text(agg)})"


def fmt_cannot_judge(agg: Aggregate) -> str:
    """` · 2 cannot judge` when items labelled so were left out of the aggregate, else ``."""
    return f" · {agg.cannot_judge} cannot judge" if agg.cannot_judge else ""


def fmt_value(value: float | bool | None) -> str:
    """A per-question value: 0.50, yes/no, or n/a."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value_text(value, 2)


def label_mark(sources: LabelSources | None) -> str:
    """` · judge-labelled, ...` for a measure whose counted labels include judge labels."""
    mark = None if sources is None else sources.mark()
    return "" if mark is None else f" · {mark}"


def shown_measures(
    evaluation: Evaluation, all_measures: bool
) -> tuple[tuple[Measure, ...], tuple[str, ...]]:
    """The measures a terminal table shows, and the names it leaves out (n/a in every run)."""
    if all_measures:
        return evaluation.measures, ()
    hidden = not_applicable_everywhere(
        [run.summary for run in evaluation.runs], [m.name for m in evaluation.measures]
    )
    return tuple(m for m in evaluation.measures if m.name not in hidden), hidden


def _summary_rows(
    evaluation: Evaluation, measures: Sequence[Measure] | None = None
) -> list[list[str]]:
    rows = []
    # Measures counted from judge labels say so, and whether a calibration record vouches.
    for m in evaluation.measures if measures is None else measures:
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


def _question_rows(
    evaluation: Evaluation, run_index: int, measures: Sequence[Measure] | None = None
) -> tuple[list[str], list[list[str]]]:
    run = evaluation.runs[run_index]
    chosen = evaluation.measures if measures is None else measures
    names = [m for m in chosen if m.name in TABLE_MEASURES]
    header = ["question", "outcome", *(m.name for m in names), "diagnosis"]
    verdicts = {v.question_id: v for v in run.diagnosis.questions}
    rows = []
    for rec in run.questions:
        values = [fmt_value(score_json(m, rec.scores[m.name])) for m in names]
        verdict = verdicts[rec.question_id]
        more = f" (+{', '.join(verdict.secondary)})" if verdict.secondary else ""
        rows.append([rec.question_id, rec.outcome or "-", *values, verdict.primary + more])
    rows += [[qid, NO_RESULT, *("-" for _ in names), NO_RESULT] for qid in run.no_result]
    return header, rows


def report_notes(evaluation: Evaluation) -> list[str]:
    """The notes under a report's summary: the question selection (when some questions were
    asked for), questions without a result, per run (`--allow-missing`), then the calibration
    notes."""
    found = [no_result_note(run.name, run.no_result) for run in evaluation.runs]
    if evaluation.selection != ALL_QUESTIONS:
        found.insert(0, f"only the questions selected by {evaluation.selection} are scored")
    return [*(note for note in found if note is not None), *evaluation.calibration_notes]


def _say(console: Console, text: str) -> None:
    """Plain text wrapped at the console's width at spaces, without trailing blanks."""
    lines = textwrap.wrap(text, console.width, break_long_words=False, break_on_hyphens=False)
    for line in lines:
        console.print(line, soft_wrap=True)


def _print_summary(
    console: Console, evaluation: Evaluation, measures: Sequence[Measure], hidden: Sequence[str]
) -> None:
    header = ["metric", "averaging", *(f"{run.name} ({run.cutoff})" for run in evaluation.runs)]
    # Every column folds, so a long cell wraps inside its column instead of widening the table
    # past the terminal; the first column of each table here holds names (a measure, a slice,
    # a question ID, a stage), which stay whole while the other columns wrap.
    title = "ragtriage evaluation: value (numerator/denominator)"
    rows = _summary_rows(evaluation, measures)
    console.print(text_table(title, header, rows, wrap_first=False))
    if hidden:
        _say(console, not_applicable_line(hidden))
    for note in report_notes(evaluation):
        _say(console, f"note: {note}")


def render_table(evaluation: Evaluation, width: int = 200, *, all_measures: bool = False) -> str:
    """The terminal report: aggregates with denominators, then per-question rows.

    `width` is the terminal's width (the command line passes it; cells fold to fit). Measures
    not applicable in any run are named on one line instead of a row each, unless
    `all_measures`.
    """
    buffer = io.StringIO()
    console = text_console(buffer, width)
    measures, hidden = shown_measures(evaluation, all_measures)
    _print_summary(console, evaluation, measures, hidden)
    for run in evaluation.runs:
        title = f"{run.name}: failing questions per slice, worst first"
        rows = slice_rows(run.diagnosis)
        console.print(text_table(title, SLICE_HEADER, rows, wrap_first=False))
    actions = diagnosis_next_actions(evaluation.diagnoses)
    if actions:
        title = "next actions for the primary stages found"
        console.print(text_table(title, NEXT_ACTION_HEADER, actions, wrap_first=False))
    console.print("boundaries (IDs only; sensitive values are never printed):")
    for line in evaluation_boundary_lines(evaluation):
        console.print(line)
    for index, run in enumerate(evaluation.runs):
        if len(run.questions) + len(run.no_result) > PER_QUESTION_LIMIT:
            console.print(
                f"{run.name}: {len(run.questions)} questions; per-question values in --format json"
            )
            continue
        header, rows = _question_rows(evaluation, index, measures)
        _print_questions(console, f"{run.name}: per question", header, rows)
    return buffer.getvalue()


def _print_questions(
    console: Console, title: str, header: Sequence[str], rows: list[list[str]]
) -> None:
    """The per-question table; where it would not fit the width unfolded, one entry per
    question instead (ID, outcome and diagnosis, then its values), which folds cleanly."""
    table = text_table(title, header, rows, wrap_first=False)
    unbounded = console.options.update_width(10_000)
    if console.measure(table, options=unbounded).maximum <= console.width:
        console.print(table)
        return
    console.print(f"{title} (outcome: diagnosis; values)")
    for row in rows:
        question, outcome, *values, diagnosis = row
        named = " · ".join(
            f"{name} {value}" for name, value in zip(header[2:-1], values, strict=True)
        )
        console.print(f"{question} ({outcome}): {diagnosis}")
        for line in textwrap.wrap(
            named, console.width, initial_indent="    ", subsequent_indent="    "
        ):
            console.print(line, soft_wrap=True)


def render_overview(evaluation: Evaluation, width: int = 200, *, all_measures: bool = False) -> str:
    """A short terminal summary: the four layers' measures, then one line of stages per run.

    What `ragtriage demo` prints before pointing to the full report (`evaluate`).
    """
    buffer = io.StringIO()
    console = text_console(buffer, width)
    measures, hidden = shown_measures(evaluation, all_measures)
    core = tuple(m for m in measures if m.name in TABLE_MEASURES)
    _print_summary(console, evaluation, core, hidden)
    others = [m.name for m in measures if m.name not in TABLE_MEASURES]
    if others:
        _say(
            console,
            f"{len(others)} more measures (stale evidence, permissions, injections, escalation, "
            "...) in the full report.",
        )
    for run in evaluation.runs:
        overall = run.diagnosis.breakdown.overall
        stages = ", ".join(
            f"{c.stage} {c.primary}" for c in overall.stages if c.primary and c.stage != "ok"
        )
        _say(
            console,
            f"{run.name}: {overall.failing} of {overall.questions} questions fail"
            + (f"; primary stages: {stages}" if stages else ""),
        )
    return buffer.getvalue()


def render_markdown(evaluation: Evaluation) -> str:
    """A paste-ready Markdown summary for a pull request."""
    lines = ["## ragtriage evaluation", ""]
    runs = ", ".join(
        f"{md_code(r.name)} ({r.cutoff}, evidence matched by {r.evidence_level})"
        for r in evaluation.runs
    )
    lines += [
        f"Runs: {runs}. Values are value (numerator/denominator); n/a means an empty denominator.",
        "",
    ]
    header = ["metric", "averaging", *(r.name for r in evaluation.runs)]
    lines += md_table(header, _summary_rows(evaluation))
    notes = report_notes(evaluation)
    if notes:
        lines += ["", *(f"Note: {md_text(note)}" for note in notes)]
    for run in evaluation.runs:
        lines += ["", f"### {md_text(run.name)}: failing questions per slice, worst first", ""]
        lines += md_table(SLICE_HEADER, slice_rows(run.diagnosis))
    actions = diagnosis_next_actions(evaluation.diagnoses)
    if actions:
        lines += ["", "### Next actions for the primary stages found", ""]
        lines += md_table(NEXT_ACTION_HEADER, actions)
    lines += ["", "### Boundaries", "", *evaluation_boundary_lines(evaluation, md_text)]
    for index, run in enumerate(evaluation.runs):
        if len(run.questions) + len(run.no_result) > PER_QUESTION_LIMIT:
            continue
        lines += ["", f"### {md_text(run.name)}: per question", ""]
        qheader, rows = _question_rows(evaluation, index)
        lines += md_table(qheader, rows)
    return md_lines(lines) + "\n"
