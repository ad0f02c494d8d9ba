"""The HTML report in headless Chromium: it fits 1280 and 1400 px windows, its stage colours
stay apart (also for colour-blind readers), and a link to `#q=ID` opens on the detail."""

from __future__ import annotations

import itertools
import json
import subprocess
from pathlib import Path

import pytest
from chromium import ARGS, CHROMIUM
from colour_vision import VISIONS, distance
from png_pixels import pixels

from ragtriage.api import report_page
from ragtriage.columnar import load_and_evaluate
from ragtriage.evaluation import Evaluation
from ragtriage.starter import write_starter

pytestmark = pytest.mark.slow

WIDTHS = (1280, 1400)
MIN_DISTANCE = 12.0
"""Smallest Delta E between two stage swatches drawn alike (same pattern), in every vision."""


@pytest.fixture(scope="module")
def example_page(example_evaluation: Evaluation, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("layout") / "report.html"
    path.write_text(report_page(example_evaluation), encoding="utf-8")
    return path


def _open(browser: object, url: str, width: int) -> object:
    page = browser.new_page(viewport={"width": width, "height": 900})  # type: ignore[attr-defined]
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    return page


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("fragment", ["", "#q=webhook-retries", "#q=key-rotation"])
def test_no_horizontal_overflow(
    browser: object, example_page: Path, width: int, fragment: str, output_dir: Path
) -> None:
    page = _open(browser, example_page.as_uri() + fragment, width)
    scroll_width, inner = page.evaluate(  # type: ignore[attr-defined]
        "[document.scrollingElement.scrollWidth, innerWidth]"
    )
    assert (inner, scroll_width <= inner) == (width, True), scroll_width
    # The question table's last column is inside its box at these widths, not cut off.
    right = page.evaluate(  # type: ignore[attr-defined]
        "(() => { const box = document.getElementById('q-scroll').getBoundingClientRect();"
        " const last = document.querySelector('#q-head th:last-child').getBoundingClientRect();"
        " return [Math.round(last.right) <= Math.round(box.right), last.width > 0]; })()"
    )
    assert right == [True, True]
    if not fragment:
        page.screenshot(path=str(output_dir / f"layout-{width}.png"), full_page=True)  # type: ignore[attr-defined]
    page.close()  # type: ignore[attr-defined]


def _swatches(page: object) -> dict[str, tuple[str, str]]:
    """Stage -> (colour, pattern) as drawn in the legend: a solid fill, or the background
    colour of the pattern the fill points to and that pattern's kind."""
    found: dict[str, list[str]] = page.evaluate(  # type: ignore[attr-defined]
        """(() => {
          const out = {};
          for (const r of document.querySelectorAll('#chart-stages rect[data-legend]')) {
            const fill = r.getAttribute('fill');
            const m = /^url\\(#(.+)\\)$/.exec(fill);
            const name = r.getAttribute('data-legend');
            if (!m) { out[name] = [fill.toUpperCase(), 'solid']; continue; }
            const p = document.getElementById(m[1]);
            const kind = p.querySelector('circle') ? 'dots' : 'hatch';
            out[name] = [p.querySelector('rect').getAttribute('fill').toUpperCase(), kind];
          }
          return out;
        })()"""
    )
    return {name: (colour, kind) for name, (colour, kind) in found.items()}


def test_stage_colours_are_distinct_in_every_vision(browser: object, example_page: Path) -> None:
    page = _open(browser, example_page.as_uri(), 1280)
    drawn = _swatches(page)
    page.close()  # type: ignore[attr-defined]
    # The example's baseline shows every built-in failing stage, plus ok.
    assert len(drawn) == 15
    assert len(set(drawn.values())) == len(drawn)
    close = [
        (vision, a, b, round(distance(ca, cb, matrix), 1))
        for (a, (ca, pa)), (b, (cb, pb)) in itertools.combinations(drawn.items(), 2)
        for vision, matrix in VISIONS.items()
        if pa == pb and distance(ca, cb, matrix) < MIN_DISTANCE
    ]
    assert close == []
    # The pair the issue named: they now differ in colour family and in pattern.
    assert drawn["truncation_loss"] == ("#009E73", "solid")
    assert drawn["false_refusal"] == ("#9AD2F2", "hatch")


def _non_blank(path: Path) -> tuple[int, int]:
    """Share (per mille) of non-white pixels, and the number of distinct colours."""
    _, _, values = pixels(path)
    inked = sum(1 for p in values if p != (255, 255, 255))
    return inked * 1000 // len(values), len(set(values))


def test_a_link_to_a_question_opens_on_its_detail(
    browser: object, example_page: Path, tmp_path: Path, output_dir: Path
) -> None:
    url = example_page.as_uri() + "#q=key-rotation"
    page = _open(browser, url, 1280)
    state = page.evaluate(  # type: ignore[attr-defined]
        "[document.getElementById('detail').hidden, scrollY,"
        " document.getElementById('d-title').textContent,"
        " Math.round(document.getElementById('detail').getBoundingClientRect().top) < innerHeight,"
        " document.querySelector('#d-body .labeller').textContent]"
    )
    title = "Question key-rotation · run baseline"
    assert state == [False, 0, title, True, " by human reviewer-mei"]
    page.close()  # type: ignore[attr-defined]
    # As a reader would take it: Chromium's own screenshot of the link, on load.
    shot = tmp_path / "detail.png"
    subprocess.run(
        [
            CHROMIUM,
            *ARGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1280,900",
            f"--screenshot={shot}",
            url,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    inked, colours = _non_blank(shot)
    shot.replace(output_dir / "detail-from-link.png")
    assert inked > 20 and colours > 50, (inked, colours)


def _starter_evaluation(target: Path) -> Evaluation:
    """The starter dataset written in `target` (its files perhaps edited), evaluated."""
    return load_and_evaluate(
        target / "evalset.json",
        snapshot=target / "snapshot.json",
        runs=[target / "run.json"],
        labels=[target / "labels.json"],
    )


def test_candidate_ranks_show_without_a_reranker(
    browser: object, tmp_path_factory: pytest.TempPathFactory
) -> None:
    target = tmp_path_factory.mktemp("starter-page")
    write_starter(target)
    evaluation = _starter_evaluation(target)
    path = target / "report.html"
    path.write_text(report_page(evaluation), encoding="utf-8")
    page = _open(browser, path.as_uri() + "#q=free-limit", 1400)
    ranks = page.eval_on_selector_all(  # type: ignore[attr-defined]
        "#d-body tr.rank",
        "rows => rows.map(r => [r.children[0].textContent, r.children[3].textContent])",
    )
    assert ranks == [["1", "1"], ["2", "2"]]
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")  # type: ignore[attr-defined]
    page.close()  # type: ignore[attr-defined]


LONG_ID = "export_formats_" + "x" * 120
"""A question ID without a place to break."""
LONG_RUN = "starter_run_" + "r" * 120
"""A run name without a place to break (the boundaries name it in `code`)."""


@pytest.mark.parametrize("fragment", ["", "#q=" + LONG_ID])
def test_long_unbroken_names_do_not_scroll_sideways(
    browser: object, tmp_path_factory: pytest.TempPathFactory, fragment: str
) -> None:
    target = tmp_path_factory.mktemp("long-names")
    write_starter(target)
    for name in ("evalset.json", "run.json", "labels.json"):
        path = target / name
        text = path.read_text(encoding="utf-8").replace('"export-formats"', f'"{LONG_ID}"')
        data = json.loads(text.replace('"starter-run"', f'"{LONG_RUN}"'))
        if name == "evalset.json":
            data["questions"][0]["text"] = "Which_formats_" + "y" * 200 + "?"
        path.write_text(json.dumps(data), encoding="utf-8")
    evaluation = _starter_evaluation(target)
    path = target / "report.html"
    path.write_text(report_page(evaluation, title="t" * 200), encoding="utf-8")
    page = _open(browser, path.as_uri() + fragment, 1280)
    state = page.evaluate(  # type: ignore[attr-defined]
        "[document.getElementById('detail').hidden, document.scrollingElement.scrollWidth]"
    )
    assert state == [not fragment, 1280]
    page.close()  # type: ignore[attr-defined]


def test_long_run_names_and_tags_keep_the_filters_in_the_window(
    browser: object, tmp_path_factory: pytest.TempPathFactory
) -> None:
    target = tmp_path_factory.mktemp("long-filters")
    write_starter(target)
    for name in ("run.json", "labels.json", "evalset.json"):
        path = target / name
        text = path.read_text(encoding="utf-8")
        data = json.loads(text.replace('"starter-run"', '"' + "r" * 400 + '"'))
        if name == "evalset.json":
            data["questions"][0]["tags"] = ["t" * 400]
        path.write_text(json.dumps(data), encoding="utf-8")
    path = target / "report.html"
    path.write_text(report_page(_starter_evaluation(target)), encoding="utf-8")
    page = _open(browser, path.as_uri(), 1280)
    # Before, each select was as wide as its longest option: 2,700 and 3,300 px.
    state = page.evaluate(  # type: ignore[attr-defined]
        "[document.scrollingElement.scrollWidth,"
        " ...['f-run', 'f-tag'].map(id => document.getElementById(id)"
        ".getBoundingClientRect().right <= innerWidth)]"
    )
    assert state == [1280, True, True]
    page.select_option("#f-tag", "t" * 400)  # type: ignore[attr-defined]
    assert page.eval_on_selector_all("#q-body tr", "rows => rows.length") == 1  # type: ignore[attr-defined]
    page.close()  # type: ignore[attr-defined]
