"""Rendering: table, JSON and Markdown of an evaluation and of its diagnosis (HTML lives beside
them). Renderers only format what the result carries; they compute nothing."""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._aggregate_json import aggregate_json
    from ._boundaries import (
        boundaries_json,
        boundaries_lines,
        evaluation_boundary_lines,
    )
    from ._diagnosis import (
        breakdown_json,
        diagnosis_report_json,
        question_diagnosis_json,
        render_diagnosis_markdown,
        render_diagnosis_table,
        run_diagnosis_json,
        slice_rows,
    )
    from ._json import (
        dumps,
        evaluation_json,
        evaluation_text,
        run_json,
        score_json,
    )
    from ._terminal import (
        MAX_WIDTH,
        MIN_WIDTH,
        terminal_width,
    )
    from ._text import (
        fmt_aggregate,
        fmt_number,
        fmt_value,
        render_markdown,
        render_overview,
        render_table,
        shown_measures,
    )
    from ._trec_report import (
        trec_json,
        trec_json_text,
        trec_table,
    )

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "boundaries_json": "._boundaries",
    "boundaries_lines": "._boundaries",
    "evaluation_boundary_lines": "._boundaries",
    "breakdown_json": "._diagnosis",
    "diagnosis_report_json": "._diagnosis",
    "question_diagnosis_json": "._diagnosis",
    "render_diagnosis_markdown": "._diagnosis",
    "render_diagnosis_table": "._diagnosis",
    "run_diagnosis_json": "._diagnosis",
    "slice_rows": "._diagnosis",
    "aggregate_json": "._aggregate_json",
    "dumps": "._json",
    "evaluation_json": "._json",
    "evaluation_text": "._json",
    "run_json": "._json",
    "score_json": "._json",
    "MAX_WIDTH": "._terminal",
    "MIN_WIDTH": "._terminal",
    "terminal_width": "._terminal",
    "fmt_aggregate": "._text",
    "fmt_number": "._text",
    "fmt_value": "._text",
    "render_markdown": "._text",
    "render_overview": "._text",
    "render_table": "._text",
    "shown_measures": "._text",
    "trec_json": "._trec_report",
    "trec_json_text": "._trec_report",
    "trec_table": "._trec_report",
}

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
    "evaluation_text",
    "fmt_aggregate",
    "fmt_number",
    "fmt_value",
    "question_diagnosis_json",
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


__getattr__ = lazy_names(__name__, _LAZY, globals())
