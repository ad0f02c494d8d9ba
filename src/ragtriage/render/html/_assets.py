"""The files inlined into every report: the chart library, the page script and its styles.

The chart library is the Vega + Vega-Lite + vega-embed bundle that the `vl-convert-python`
package builds from the JavaScript it ships (no network): the report inlines it so that the
page draws its charts from a file:// URL or a CI artifact without fetching anything.
"""

from __future__ import annotations

import functools
from importlib import resources

import altair as alt
import vl_convert

_EXPORTS = "window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;"
"""The bundle's entry snippet: put the three libraries on `window` for the page script."""

_ASSETS = resources.files(__package__).joinpath("assets")


def asset(name: str) -> str:
    """The text of one packaged asset (`report.js`, `report.css`, `report.html.j2`)."""
    return _ASSETS.joinpath(name).read_text(encoding="utf-8")


def vegalite_version() -> str:
    """The Vega-Lite `major.minor` Altair writes specs for, when vl-convert ships it."""
    wanted = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    available = vl_convert.get_vegalite_versions()
    return wanted if wanted in available else available[-1]


@functools.lru_cache(maxsize=1)
def chart_library() -> str:
    """The Vega, Vega-Lite and vega-embed JavaScript as one script (about 0.9 MB).

    Built once per process (about 1.5 s); it defines `vegaEmbed`, `vega` and `vegaLite`
    on `window`.
    """
    bundle: str = vl_convert.javascript_bundle(_EXPORTS, vl_version=vegalite_version())
    if "</script" in bundle.lower():
        # The bundle is inlined in a <script> element; this text would end it early.
        raise RuntimeError("the bundled chart library contains '</script' and cannot be inlined")
    return bundle
