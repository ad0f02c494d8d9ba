"""Rendering: table, JSON and Markdown of an evaluation and of its diagnosis (HTML lives beside
them). Renderers only format what the result carries; they compute nothing."""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._aggregate_json import aggregate_json as aggregate_json
    from ._boundaries import (
        boundaries_json as boundaries_json,
        boundaries_lines as boundaries_lines,
        evaluation_boundary_lines as evaluation_boundary_lines,
    )
    from ._diagnosis import (
        breakdown_json as breakdown_json,
        diagnosis_report_json as diagnosis_report_json,
        question_diagnosis_json as question_diagnosis_json,
        render_diagnosis_markdown as render_diagnosis_markdown,
        render_diagnosis_table as render_diagnosis_table,
        run_diagnosis_json as run_diagnosis_json,
        slice_rows as slice_rows,
    )
    from ._json import (
        dumps as dumps,
        evaluation_json as evaluation_json,
        evaluation_text as evaluation_text,
        run_json as run_json,
        score_json as score_json,
    )
    from ._terminal import (
        MAX_WIDTH as MAX_WIDTH,
        MIN_WIDTH as MIN_WIDTH,
        terminal_width as terminal_width,
    )
    from ._text import (
        fmt_aggregate as fmt_aggregate,
        fmt_number as fmt_number,
        fmt_value as fmt_value,
        render_markdown as render_markdown,
        render_overview as render_overview,
        render_table as render_table,
        shown_measures as shown_measures,
    )
    from ._trec_report import (
        trec_json as trec_json,
        trec_json_text as trec_json_text,
        trec_table as trec_table,
    )

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "._aggregate_json": ("aggregate_json",),
    "._boundaries": ("boundaries_json", "boundaries_lines", "evaluation_boundary_lines"),
    "._diagnosis": (
        "breakdown_json", "diagnosis_report_json", "question_diagnosis_json",
        "render_diagnosis_markdown", "render_diagnosis_table", "run_diagnosis_json", "slice_rows",
    ),
    "._json": ("dumps", "evaluation_json", "evaluation_text", "run_json", "score_json"),
    "._terminal": ("MAX_WIDTH", "MIN_WIDTH", "terminal_width"),
    "._text": (
        "fmt_aggregate", "fmt_number", "fmt_value", "render_markdown", "render_overview",
        "render_table", "shown_measures",
    ),
    "._trec_report": ("trec_json", "trec_json_text", "trec_table"),
}


__getattr__, __all__ = lazy_names(__name__, _LAZY, globals())
