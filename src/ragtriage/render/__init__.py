"""Rendering: table, JSON and Markdown (HTML lives beside them)."""

from ._boundaries import boundaries_json, boundaries_lines, evaluation_next_actions
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

__all__ = [
    "MAX_WIDTH",
    "MIN_WIDTH",
    "aggregate_json",
    "boundaries_json",
    "boundaries_lines",
    "dumps",
    "evaluation_json",
    "evaluation_next_actions",
    "fmt_aggregate",
    "fmt_number",
    "fmt_value",
    "question_json",
    "render_markdown",
    "render_overview",
    "render_table",
    "run_json",
    "score_json",
    "shown_measures",
    "terminal_width",
]
