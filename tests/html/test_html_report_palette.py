"""The report's stage palette, boundaries, candidate ranks and labeller names (no browser)."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from colour_vision import VISIONS, distance
from markupsafe import escape

from ragtriage._markdown import md_code
from ragtriage.api import report_page
from ragtriage.columnar import load_and_evaluate
from ragtriage.diagnosis import stage_order
from ragtriage.evaluation import Evaluation
from ragtriage.render.html import OKABE_ITO, STAGE_STYLES, StageStyle, stage_style
from ragtriage.render.html._page import inline_code, markdown_bullets
from ragtriage.starter import write_starter

MIN_DISTANCE = 12.0
"""Smallest CIE76 Delta E between two stages drawn alike (same pattern), in every vision."""
MIN_NORMAL = 10.0
"""Smallest Delta E between any two stages' colours with normal vision."""


def test_every_stage_has_its_own_entry() -> None:
    # A stage added to the pipeline needs a palette entry; invalid_citation is planned.
    assert set(stage_order()) | {"invalid_citation"} <= set(STAGE_STYLES)
    assert all(s.ink is None for s in STAGE_STYLES.values() if s.pattern == "solid")
    assert all(s.ink in OKABE_ITO for s in STAGE_STYLES.values() if s.pattern != "solid")
    assert [s.colour for s in STAGE_STYLES.values() if s.pattern == "solid"][:8] == [
        "#D55E00", "#0072B2", "#56B4E9", "#009E73", "#000000", "#F0E442", "#E69F00", "#CC79A7",
    ]


def test_every_pair_of_stages_is_told_apart_in_every_vision() -> None:
    close = []
    for (a, sa), (b, sb) in itertools.combinations(STAGE_STYLES.items(), 2):
        assert (sa.colour, sa.pattern) != (sb.colour, sb.pattern), (a, b)
        if distance(sa.colour, sb.colour) < MIN_NORMAL:
            close.append(("normal", a, b))
        for vision, matrix in VISIONS.items():
            if sa.pattern == sb.pattern and distance(sa.colour, sb.colour, matrix) < MIN_DISTANCE:
                close.append((vision, a, b))
    assert close == []


def test_neighbouring_stages_never_share_a_colour_family() -> None:
    # Stacked bars put stages side by side in pipeline order.
    order = [s for s in stage_order() if s != "ok"]

    def family(style: StageStyle) -> str:
        return style.ink or style.colour

    pairs = [(a, b) for a, b in itertools.pairwise(order)]
    assert [p for p in pairs if family(STAGE_STYLES[p[0]]) == family(STAGE_STYLES[p[1]])] == []


def test_a_plugin_stage_gets_a_dotted_fallback() -> None:
    # 9 % 8 = 1: orange #E69F00 with 40 % white: 230 + 0.4 * 25, 159 + 0.4 * 96, 0 + 0.4 * 255.
    assert stage_style("custom_stage", 9) == StageStyle("#F0C566", "dots", "#E69F00")
    assert stage_style("retrieval_miss", 9) is STAGE_STYLES["retrieval_miss"]


def test_the_chart_fills_with_the_palette(example_evaluation: Evaluation) -> None:
    page = report_page(example_evaluation)
    swatch = r'fill="([^"]+)" stroke="#555" stroke-width="0.5" data-legend="([^"]+)"'
    legend = {name: colour for colour, name in re.findall(swatch, page)}
    assert legend["retrieval_miss"] == "#0072B2"
    assert legend["false_refusal"] == "url(#rt-fill-false_refusal)"
    assert legend["truncation_loss"] == "#009E73"
    assert legend["ok"] == "#BBBBBB"
    assert (
        '<pattern id="rt-fill-false_refusal" patternUnits="userSpaceOnUse" width="6" height="6" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#9AD2F2"/>'
        '<rect width="2.5" height="6" fill="#56B4E9"/></pattern>'
    ) in page


def test_inline_code_escapes_and_keeps_unmatched_backticks() -> None:
    assert inline_code("`a<b>`: x & y") == "<code>a&lt;b&gt;</code>: x &amp; y"
    assert inline_code("one ` only") == "one ` only"
    assert markdown_bullets(["- `run`: rules", "  - leak: q1", "- `other`: none"]) == [
        ("<code>run</code>: rules", ["leak: q1"]),
        ("<code>other</code>: none", []),
    ]


def test_a_run_name_or_id_holding_backticks_is_shown_whole() -> None:
    # the page split the line at every backtick: ``a `x` b`` showed as `<code></code>a
    # <code>x</code> b<code></code>`, and an ID `x`y`z` in a sub-item as x<code>y</code>z
    for name in ("base|line `x` *y* #", "a``b", "`t`", " base "):
        shown = escape(name)
        assert inline_code(md_code(name) + ": rules") == f"<code>{shown}</code>: rules"
    assert inline_code("``a`b") == "``a`b"
    assert markdown_bullets(["- `r`: rules", "  - BLOCKING permission leaks: x`y`z"]) == [
        ("<code>r</code>: rules", ["BLOCKING permission leaks: x`y`z"]),
    ]


def test_boundaries_show_code_not_backticks(example_evaluation: Evaluation) -> None:
    page = report_page(example_evaluation)
    section = page[page.index('<ul class="boundaries">') :]
    section = section[: section.index("</section>")]
    assert "`" not in section
    assert section.startswith(
        '<ul class="boundaries"><li><code>baseline</code>: rules injection-v3, sensitive-v3<ul>'
    )


@pytest.fixture(scope="module")
def starter_data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    target = tmp_path_factory.mktemp("starter")
    write_starter(target)
    evaluation = load_and_evaluate(
        target / "evalset.json",
        snapshot=target / "snapshot.json",
        runs=[target / "run.json"],
        labels=[target / "labels.json"],
    )
    page = report_page(evaluation)
    found = r'<script type="application/json" id="rt-data">(.*?)</script>'
    match = re.search(found, page, flags=re.S)
    assert match is not None
    data: dict[str, object] = json.loads(match.group(1))
    return data


def test_candidate_ranks_without_a_reranker(starter_data: dict[str, object]) -> None:
    results, questions = starter_data["results"], starter_data["questions"]
    assert isinstance(results, list) and isinstance(questions, list)
    ranks = {
        q["id"]: [item[2] for item in r["rk"]]
        for q, r in zip(questions, results[0], strict=True)
    }
    assert ranks == {
        "export-formats": [1, 2], "free-limit": [1, 2], "sync-devices": [1, 2],
        "reset-link": [1, 2], "offline-mode": [1, 2],
    }


def test_claims_carry_their_reviewers_names(starter_data: dict[str, object]) -> None:
    results = starter_data["results"]
    assert isinstance(results, list)
    claims = [c for r in results[0] for c in r.get("cl", [])]
    assert [c[5:] for c in claims] == [["human", ["reviewer-a"]]] * 4


def test_page_is_laid_out_to_fit(example_evaluation: Evaluation) -> None:
    page = report_page(example_evaluation)
    # Every table the page writes sits in a box that scrolls sideways on its own.
    assert len(re.findall(r'<div class="scroll"[^>]*><table', page)) == page.count("<table") == 8
    assert '<div class="scroll" id="q-scroll"><table id="q-table">' in page
    # The detail view comes first in <main>: a link to #q=ID shows it without scrolling.
    # (The layout itself is measured in Chromium: test_html_report_layout_browser.py.)
    assert page.index('<section id="detail" hidden>') < page.index('<section id="provenance">')
