"""The self-contained HTML report: one file with its data, script and charts inlined.

`render_html(evaluation, comparison=...)` returns the page: it formats each run's diagnosis
as the evaluation carries it and the comparison it is given. The charts are inline SVG drawn
in Python (`_charts`), so they need no script.
"""

from .._table import TABLE_MEASURES
from ._charts import FUNNEL_STEPS, FunnelStep, funnel, funnel_svg, stages_svg
from ._page import json_for_script, render_html, report_data
from ._palette import OKABE_ITO, STAGE_STYLES, StageStyle, stage_style

__all__ = [
    "FUNNEL_STEPS",
    "OKABE_ITO",
    "STAGE_STYLES",
    "TABLE_MEASURES",
    "FunnelStep",
    "StageStyle",
    "funnel",
    "funnel_svg",
    "json_for_script",
    "render_html",
    "report_data",
    "stage_style",
    "stages_svg",
]
