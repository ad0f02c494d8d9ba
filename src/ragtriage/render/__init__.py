"""Rendering: table, JSON and Markdown of an evaluation and of its diagnosis (HTML lives beside
them). Renderers only format what the result carries; they compute nothing."""

from ._boundaries import boundaries_json, boundaries_lines, evaluation_boundary_lines
from ._diagnosis import (
    breakdown_json,
    diagnosis_report_json,
    question_diagnosis_json,
    render_diagnosis_markdown,
    render_diagnosis_table,
    run_diagnosis_json,
    slice_rows,
)
from ._json import aggregate_json, dumps, evaluation_json, question_json, run_json, score_json
from ._terminal import MAX_WIDTH, MIN_WIDTH, terminal_width
from ._text import (
    fmt_aggregate,
    fmt_number,
    fmt_value,
    render_markdown,
    render_overview,
    render_table,
    shown_measures,
)
from ._trec_report import trec_json, trec_json_text, trec_table

__all__ = [
    "MAX_WIDTH",
    "MIN_WIDTH",
    "aggregate_json",
    "boundaries_json",
    "boundaries_lines",
    "breakdown_json",
    "diagnosis_report_json",
    "dumps",
    "evaluation_boundary_lines",
    "evaluation_json",
    "fmt_aggregate",
    "fmt_number",
    "fmt_value",
    "question_diagnosis_json",
    "question_json",
    "render_diagnosis_markdown",
    "render_diagnosis_table",
    "render_markdown",
    "render_overview",
    "render_table",
    "run_diagnosis_json",
    "run_json",
    "score_json",
    "shown_measures",
    "slice_rows",
    "terminal_width",
    "trec_json",
    "trec_json_text",
    "trec_table",
]
