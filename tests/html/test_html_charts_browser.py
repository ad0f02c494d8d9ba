"""The SVG charts in headless Chromium: drawn without script, hostile names inert."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_html_charts import SHOWN_RUN, write_hostile

from ragtriage.api import report_page
from ragtriage.columnar import load_and_evaluate

pytestmark = pytest.mark.slow

def test_hostile_names_in_the_charts_are_inert(
    browser: object, tmp_path: Path, output_dir: Path
) -> None:
    evalset, snapshot, runs = write_hostile(tmp_path)
    path = tmp_path / "hostile.html"
    path.write_text(
        report_page(load_and_evaluate(evalset, snapshot=snapshot, runs=runs)), encoding="utf-8"
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    console: list[str] = []
    page.on("console", lambda msg: console.append(msg.text))
    page.on("pageerror", lambda exc: console.append(f"pageerror: {exc}"))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")  # the page script still runs
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.title() == "ragtriage report"
    assert page.eval_on_selector_all("svg svg, script[src]", "n => n.length") == 0
    assert page.eval_on_selector_all("#chart-funnel rect.bar", "n => n.length") == 12
    runs_drawn = page.eval_on_selector_all(
        "#chart-funnel rect.bar", "rs => [...new Set(rs.map(r => r.dataset.run))]"
    )
    assert runs_drawn == [SHOWN_RUN, "improved"]
    assert console == []
    page.locator("#funnel").screenshot(path=str(output_dir / "chart-funnel-hostile.png"))
    page.locator("#slices").screenshot(path=str(output_dir / "chart-stages-hostile.png"))
    page.close()
