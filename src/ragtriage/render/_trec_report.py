"""Rendering a `TrecEvaluation`: JSON (sorted keys, no timestamps) and a terminal table."""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from .._console import text_console, text_table
from ..columnar import AVERAGING_RULES, TrecEvaluation
from ..errors import counted
from ..fileio import json_text, json_text_table
from ..loading import report_head
from ..metrics import fraction_text, value_text
from ._aggregate_json import aggregate_json


def trec_json(evaluation: TrecEvaluation, per_question: bool = False) -> dict[str, Any]:
    """The report as plain data; per-question values (null = not applicable) on request."""
    scores = evaluation.scores
    data: dict[str, Any] = {
        **report_head(evaluation.tool_version, evaluation.sources),
        "options": {
            "averaging": evaluation.averaging,
            "tie_rule": evaluation.tie_rule,
        },
        "metrics": [
            {
                "name": m.label,
                "averaging": "macro",
                "averaging_rule": AVERAGING_RULES[evaluation.averaging],
                "direction": "higher",
                "formula": m.summary,
                "reference_metric": f"{m.reference}@{m.k}",
            }
            for m in scores.measures
        ],
        "questions_scored": len(scores.question_ids),
        "missing_questions": list(evaluation.missing),
        "comment_lines": {
            "qrels": evaluation.comment_lines[0],
            "run": evaluation.comment_lines[1],
        },
        "skipped_questions": list(evaluation.skipped),
        "summary": {label: aggregate_json(agg) for label, agg in scores.summary.items()},
    }
    if per_question:
        columns = {label: pq.values() for label, pq in scores.per_question.items()}
        data["questions"] = [
            {"id": qid, **{label: values[row] for label, values in columns.items()}}
            for row, qid in enumerate(scores.question_ids)
        ]
    return data


def trec_json_text(evaluation: TrecEvaluation, per_question: bool = False) -> str:
    """The JSON report's text: byte for byte `json_text(trec_json(evaluation, per_question))`,
    with the per-question rows written from the score arrays (no dict per value)."""
    if not per_question:
        return json_text(trec_json(evaluation))
    scores = evaluation.scores
    columns = {label: pq.value_array() for label, pq in scores.per_question.items()}
    computed_nan = any(
        bool(np.isnan(columns[label][pq.denominator != 0]).any())
        for label, pq in scores.per_question.items()
    )
    if computed_nan or "id" in columns:  # a value written NaN, not null: the plain way
        return json_text(trec_json(evaluation, per_question=True))
    ids = {"id": scores.question_ids}
    return json_text_table(trec_json(evaluation), "questions", ids, columns)


_TREATED = {
    "relevant": ("was scored as empty", "were scored as empty"),
    "trec_eval": ("was left out of the averages", "were left out of the averages"),
    "trec_eval-c": ("counts 0", "count 0"),
}
"""What each averaging rule does with a qrels question without a ranking: for one question,
for several."""


def trec_table(evaluation: TrecEvaluation, width: int = 100) -> str:
    """Measure, value, numerator/denominator and not-applicable count, one row each."""
    questions = len(evaluation.scores.question_ids)
    title = f"ragtriage trec-eval ({counted(questions, 'question')})"
    rows = []
    for label, agg in evaluation.scores.summary.items():
        ratio = fraction_text(agg, " / ")
        rows.append((label, value_text(agg.value, 4), ratio, str(agg.not_applicable)))
    header = ("measure", "value", "numerator / denominator", "n/a")
    table = text_table(title, header, rows, fold=False, figures=True)
    buffer = io.StringIO()
    text_console(buffer, width).print(table)
    notes = [f"Averaging ({evaluation.averaging}): {AVERAGING_RULES[evaluation.averaging]}."]
    if evaluation.missing:
        count = len(evaluation.missing)
        treated = _TREATED[evaluation.averaging][count != 1]
        notes.append(f"{counted(count, 'qrels question')} had no ranking and {treated}.")
    if any(evaluation.comment_lines):
        qrels_lines, run_lines = evaluation.comment_lines
        notes.append(f"Comment lines skipped: {qrels_lines} in the qrels, {run_lines} in the run.")
    if evaluation.skipped:
        count = len(evaluation.skipped)
        verb = ("was", "were")[count != 1]
        notes.append(f"{counted(count, 'run question')} without judgements {verb} skipped.")
    return buffer.getvalue() + "".join(note + "\n" for note in notes)
