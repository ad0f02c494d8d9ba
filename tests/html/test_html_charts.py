"""The report's inline SVG charts: scale, values, text fitting and hostile names."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ragtriage.api import report_page
from ragtriage.columnar import load_and_evaluate
from ragtriage.diagnosis import diagnose
from ragtriage.evaluation import Evaluation
from ragtriage.example import example_paths
from ragtriage.render.html import FUNNEL_STEPS, funnel, funnel_svg, stages_svg
from ragtriage.render.html._charts import fit, nice_ticks, text_width

HOSTILE_RUN = "base\u2028line</script><svg onload=window.__pwned=8>"
"""A run name with a line separator, a closing script tag and an SVG with a handler."""
HOSTILE_TAG = "<svg onload=window.__pwned=9>\u2028</script>"
"""A tag (a slice of the stages chart) of the same kind."""
SHOWN_RUN = "base\\u2028line</script><svg onload=window.__pwned=8>"
"""`HOSTILE_RUN` as the page shows it: the line separator as its escape."""
SHOWN_TAG = "<svg onload=window.__pwned=9>\\u2028</script>"
"""`HOSTILE_TAG` as the page shows it."""


class Elements(HTMLParser):
    """Start tags with their attributes, and the text of every <title>."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.titles: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.titles.append(data)


def _parse(markup: str) -> Elements:
    parser = Elements()
    parser.feed(markup)
    parser.close()
    return parser


def test_ticks_are_round_and_cover_the_top() -> None:
    assert nice_ticks(13) == [0, 5, 10, 15]
    assert nice_ticks(10_000) == [0, 2000, 4000, 6000, 8000, 10000]
    assert nice_ticks(1) == [0, 1]
    assert nice_ticks(0) == [0, 1]


def test_text_width_and_fit() -> None:
    assert text_width("ab") == pytest.approx(14.4)
    assert text_width("中文") == pytest.approx(24.0)
    assert fit("abcdefghij", 30) == "abc…"
    assert fit("abc", 30) == "abc"
    assert fit("检索评测报告", 40) == "检索…"


def test_funnel_bars_carry_the_funnel_counts(example_evaluation: Evaluation) -> None:
    steps = [s for run in example_evaluation.runs for s in funnel(run)]
    bars = [a for tag, a in _parse(funnel_svg(steps)).tags if tag == "rect" and a.get("class")]
    assert [(a["data-run"], a["data-step"], int(a["data-value"] or 0)) for a in bars] == [
        (s.run, s.step, s.questions) for s in sorted(steps, key=_step_order)
    ]
    # 13 questions on an axis to 15, 520 pixels long.
    assert [a["width"] for a in bars[:2]] == ["450.67", "450.67"]


def _step_order(step: object) -> tuple[int, int]:
    runs = ["baseline", "improved"]
    return FUNNEL_STEPS.index(step.step), runs.index(step.run)  # type: ignore[attr-defined]


def test_stage_segments_fill_each_slice(example_evaluation: Evaluation) -> None:
    diagnoses = diagnose(example_evaluation)
    svg = stages_svg(diagnoses, diagnoses[0].stages)
    bars = [a for tag, a in _parse(svg).tags if tag == "rect" and a.get("class")]
    totals: dict[tuple[str, str], float] = {}
    for a in bars:
        key = (a["data-run"] or "", a["data-slice"] or "")
        totals[key] = totals.get(key, 0.0) + float(a["width"] or 0)
    expected = {
        (d.run, s.key) for d in diagnoses for s in (d.breakdown.overall, *d.breakdown.worst_first())
    }
    assert set(totals) == expected
    assert all(value == pytest.approx(520, abs=0.05) for value in totals.values())


def write_hostile(root: Path) -> tuple[Path, Path, tuple[Path, ...]]:
    """The example with a hostile run name and a hostile tag."""
    paths = example_paths()
    evalset = json.loads(paths.evalset.read_text(encoding="utf-8"))
    evalset["questions"][0]["tags"].append(HOSTILE_TAG)
    runs = []
    for index, run_path in enumerate(paths.runs):
        run = json.loads(run_path.read_text(encoding="utf-8"))
        if index == 0:
            run["name"] = HOSTILE_RUN
        out = root / run_path.name
        out.write_text(json.dumps(run, ensure_ascii=False), encoding="utf-8")
        runs.append(out)
    out_evalset = root / "evalset.json"
    out_evalset.write_text(json.dumps(evalset, ensure_ascii=False), encoding="utf-8")
    return out_evalset, paths.snapshot, tuple(runs)


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The report of the example with a hostile run name and tag."""
    evalset, snapshot, runs = write_hostile(tmp_path_factory.mktemp("hostile"))
    return report_page(load_and_evaluate(evalset, snapshot=snapshot, runs=runs))


def test_hostile_names_stay_text_in_the_charts(hostile_page: str) -> None:
    parsed = _parse(hostile_page)
    names = [tag for tag, _ in parsed.tags]
    assert names.count("script") == 2  # the data block and the page script
    assert hostile_page.count("</script>") == 2
    assert names.count("svg") == 2  # the two charts
    assert [a for _, a in parsed.tags if any(k.startswith("on") for k in a)] == []
    # Whole in the tooltips, where the labels are cut to fit.
    assert any(SHOWN_RUN in title for title in parsed.titles)
    assert any(f"tag:{SHOWN_TAG}" in title for title in parsed.titles)
    # The attribute round-trips: one funnel bar per step for the hostile run.
    steps = [a["data-step"] for _, a in parsed.tags if a.get("data-run") == SHOWN_RUN
             and "data-step" in a]
    assert steps == list(FUNNEL_STEPS)


def test_the_policy_allows_only_the_page_script(example_evaluation: Evaluation) -> None:
    page = report_page(example_evaluation)
    policy = next(
        a["content"] for tag, a in _parse(page).tags
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    )
    assert policy is not None
    script_src = next(p for p in policy.split("; ") if p.startswith("script-src"))
    assert script_src.count("'sha256-") == 1
    assert "unsafe" not in script_src


def test_charts_without_runs_are_empty_but_valid() -> None:
    funnel_markup = str(funnel_svg([]))
    stages_markup = str(stages_svg([], ["retrieval_miss", "ok"]))
    for markup in (funnel_markup, stages_markup):
        assert markup.startswith('<svg xmlns="http://www.w3.org/2000/svg" ')
        assert markup.endswith("</svg>")
        assert 'class="bar"' not in markup


def test_the_funnel_is_wide_enough_for_its_longest_value() -> None:
    from ragtriage.render.html import FunnelStep

    steps = [FunnelStep("r", step, 10_000, 10_000) for step in FUNNEL_STEPS]
    svg = next(a for tag, a in _parse(funnel_svg(steps)).tags if tag == "svg")
    # Labels column 8 + 122.4 ("required evidence") + 8, axis 520, then 3 + 66 ("10000/10000"
    # at 10 px) and a margin of 8: 735.4, rounded up.
    assert svg["width"] == "736"
