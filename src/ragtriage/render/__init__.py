"""Rendering: table, JSON and Markdown of an evaluation and of its diagnosis (HTML lives beside
them). Renderers only format what the result carries; they compute nothing."""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._boundaries import (
        boundaries_json as boundaries_json,
        boundaries_lines as boundaries_lines,
    )
    from ._diagnosis import (
        diagnosis_report_json as diagnosis_report_json,
        render_diagnosis_markdown as render_diagnosis_markdown,
        render_diagnosis_table as render_diagnosis_table,
    )
    from ._json import (
        dumps as dumps,
        evaluation_json as evaluation_json,
        evaluation_text as evaluation_text,
    )
    from ._terminal import terminal_width as terminal_width
    from ._text import (
        render_markdown as render_markdown,
        render_overview as render_overview,
        render_table as render_table,
    )
    from ._trec_report import (
        trec_json as trec_json,
        trec_json_text as trec_json_text,
        trec_table as trec_table,
    )

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "._boundaries": ("boundaries_json", "boundaries_lines"),
    "._diagnosis": (
        "diagnosis_report_json", "render_diagnosis_markdown", "render_diagnosis_table",
    ),
    "._json": ("dumps", "evaluation_json", "evaluation_text"),
    "._terminal": ("terminal_width",),
    "._text": ("render_markdown", "render_overview", "render_table"),
    "._trec_report": ("trec_json", "trec_json_text", "trec_table"),
}


__getattr__, __all__ = lazy_names(__name__, _LAZY, globals())
