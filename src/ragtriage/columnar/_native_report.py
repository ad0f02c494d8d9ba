"""A `NativeEvaluation` in the shape of the `evaluate` report, for `evaluate --algorithm columnar`.

The JSON keeps the reference report's contract (`render.evaluation_json`) for everything the
columnar path computes: each run's name, k and summary, and per question its ID, every
measure's value and its diagnosis (primary and secondary stages). What the columnar path does
not compute (provenance, slices, label sources, boundaries, findings' IDs) is left out rather
than filled with guesses. The text renderings are a compact summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..diagnosis import OK
from ..metrics import (
    Aggregate,
    MetricSpec,
    PerQuestion,
    not_applicable_everywhere,
    not_applicable_line,
    parse_measure,
)
from ._native_eval import NativeEvaluation, NativeRunResult


def _spec(name: str) -> MetricSpec:
    """The registry entry of a measure name (`ndcg@10`: `ndcg`)."""
    return parse_measure(name).spec


def _values(boolean: bool, part: PerQuestion) -> list[float | bool | None]:
    """Per question, as render.score_json writes a value: null when not applicable,
    true/false for booleans, else the ratio (the same IEEE division, over the column)."""
    applies = part.denominator > 0
    if boolean:
        values: list[Any] = (part.numerator != 0).tolist()
    else:
        ratio = np.divide(
            part.numerator, part.denominator, out=np.zeros(applies.size), where=applies
        )
        values = ratio.tolist()
    return [v if a else None for v, a in zip(values, applies.tolist(), strict=True)]


def _aggregate_json(agg: Aggregate) -> dict[str, Any]:
    from ..render import aggregate_json  # imported here: scoring needs no renderer

    return aggregate_json(agg)


def _questions(run: NativeRunResult, measures: Sequence[str]) -> list[dict[str, Any]]:
    names = list(measures)
    columns = [_values(_spec(name).kind == "boolean", run.scores[name]) for name in names]
    failing = [s for s in run.stages if s != OK]
    found = {stage: run.findings[stage].tolist() for stage in failing}
    primary = run.primary.tolist()
    rows = []
    by_row = zip(*columns, strict=True) if columns else ((),) * len(run.question_ids)
    for row, (question_id, values) in enumerate(zip(run.question_ids, by_row, strict=True)):
        first = run.stages[primary[row]]
        entry: dict[str, Any] = dict(zip(names, values, strict=True))
        entry["id"] = question_id
        entry["diagnosis"] = {
            "primary": first,
            "secondary": [s for s in failing if found[s][row] and s != first],
        }
        rows.append(entry)
    return rows


def native_report_json(result: NativeEvaluation, measures: Sequence[str]) -> dict[str, Any]:
    """The report as plain data: `evaluation_json`'s keys for what the columnar path computes.

    `measures` (measures the result computed, by name: `ndcg@10`) picks the summary entries
    and per-question values, as `--metric` does for the reference report.
    """
    specs = {name: _spec(name) for name in measures}
    return {
        "schema_version": 1,
        "engine": result.engine,
        "fallback": result.fallback,
        "reference_rows": result.reference_rows,
        "metrics": [
            {
                "name": name,
                "layer": spec.layer,
                "direction": spec.direction,
                "averaging": spec.averaging,
                "kind": spec.kind,
            }
            for name, spec in specs.items()
        ],
        "runs": [
            {
                "name": run.name,
                "k": run.k,
                "k_used": run.k_used,
                "summary": {name: _aggregate_json(run.summary[name]) for name in measures},
                "diagnosis": {
                    "primary": run.primary_counts(),
                    "present": run.present_counts(),
                },
                "questions": _questions(run, measures),
            }
            for run in result.runs
        ],
    }


def _cell(agg: Aggregate) -> str:
    left_out = f", {agg.cannot_judge} cannot judge" if agg.cannot_judge else ""
    if agg.value is None:
        return f"n/a (0/0, {agg.not_applicable} n/a{left_out})"
    return f"{agg.value:.4f} ({agg.numerator:g}/{agg.denominator:g}{left_out})"


def _rows(result: NativeEvaluation, measures: Sequence[str]) -> list[list[str]]:
    rows = [
        [name, _spec(name).averaging, *(_cell(run.summary[name]) for run in result.runs)]
        for name in measures
    ]
    stages = result.runs[0].stages if result.runs else ()
    for stage in stages:
        counts = [run.primary_counts()[stage] for run in result.runs]
        if any(counts):
            rows.append([f"primary: {stage}", "questions", *(str(c) for c in counts)])
    return rows


def _header(result: NativeEvaluation) -> list[str]:
    return ["metric", "averaging", *(f"{run.name} ({run.cutoff})" for run in result.runs)]


def _note(result: NativeEvaluation) -> str:
    questions = len(result.runs[0].question_ids) if result.runs else 0
    note = f"engine: {result.engine}, {questions} questions"
    if result.fallback is not None:
        note += f" (reference path: {result.fallback})"
    return note + "; per-question values in --format json"


def native_report_markdown(result: NativeEvaluation, measures: Sequence[str]) -> str:
    """A compact Markdown summary: aggregates, then primary-stage counts per run."""
    lines = ["## ragtriage evaluation (columnar)", "", _note(result), ""]
    header = _header(result)
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(row) + " |" for row in _rows(result, measures)]
    return "\n".join(lines) + "\n"


def native_report_table(
    result: NativeEvaluation,
    measures: Sequence[str],
    width: int = 200,
    *,
    all_measures: bool = False,
) -> str:
    """A compact terminal table: aggregates, then primary-stage counts per run.

    Measures not applicable in any run are named on one line unless `all_measures`, as in
    `render.render_table`.
    """
    import io

    from rich.console import Console
    from rich.table import Table

    hidden = (
        ()
        if all_measures
        else not_applicable_everywhere([run.summary for run in result.runs], measures)
    )
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    table = Table(title="ragtriage evaluation (columnar): value (numerator/denominator)")
    for index, name in enumerate(_header(result)):
        table.add_column(name, overflow="fold", no_wrap=index == 0)
    for row in _rows(result, [m for m in measures if m not in hidden]):
        table.add_row(*row)
    console.print(table)
    if hidden:
        console.print(not_applicable_line(hidden), markup=False, highlight=False)
    console.print(_note(result), markup=False, highlight=False)
    return buffer.getvalue()
