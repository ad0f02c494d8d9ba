"""The self-contained HTML report: one file with its data, script and charts inlined.

`render_html(evaluation)` returns the page; it diagnoses every run unless diagnoses are
given. The charts are inline SVG drawn in Python (`_charts`), so they need no script.
"""

from ._charts import FUNNEL_STEPS, FunnelStep, funnel, funnel_svg, stages_svg
from ._page import TABLE_MEASURES, default_comparison, json_for_script, render_html, report_data
from ._palette import OKABE_ITO, STAGE_STYLES, StageStyle, stage_style

__all__ = [
    "FUNNEL_STEPS",
    "OKABE_ITO",
    "STAGE_STYLES",
    "TABLE_MEASURES",
    "FunnelStep",
    "StageStyle",
    "default_comparison",
    "funnel",
    "funnel_svg",
    "json_for_script",
    "render_html",
    "report_data",
    "stage_style",
    "stages_svg",
]
