"""The self-contained HTML report: one file with inlined charts, data and script.

`render_html(evaluation)` returns the page; it diagnoses every run unless diagnoses are
given. Charts are Vega-Lite specs built with Altair and drawn by the Vega JavaScript that
`vl-convert-python` bundles, inlined into the page.
"""

from ._assets import chart_library
from ._charts import FUNNEL_STEPS, FunnelStep, funnel
from ._page import TABLE_MEASURES, default_comparison, json_for_script, render_html, report_data

__all__ = [
    "FUNNEL_STEPS",
    "TABLE_MEASURES",
    "FunnelStep",
    "chart_library",
    "default_comparison",
    "funnel",
    "json_for_script",
    "render_html",
    "report_data",
]
