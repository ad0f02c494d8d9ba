"""The HTML report in headless Chromium: charts drawn, filters exact, detail view, no injection."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from html_report_injection import DOC_ID, IMG, QUESTION_ID, SCRIPT

from ragtriage.api import report_page
from ragtriage.columnar import load_and_evaluate
from ragtriage.diagnosis import diagnose
from ragtriage.evaluation import Evaluation
from ragtriage.example import example_paths
from ragtriage.render.html import TABLE_MEASURES, funnel
from ragtriage.starter import write_starter

pytestmark = pytest.mark.slow



class Opened:
    """A report opened in a page, with what the page asked the network for and logged."""

    def __init__(self, browser: object, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        self.requests: list[str] = []
        self.console: list[str] = []
        self.page.on("console", lambda msg: self.console.append(msg.text))
        self.page.on("pageerror", lambda exc: self.console.append(f"pageerror: {exc}"))

        def route(r: object) -> None:
            url = r.request.url  # type: ignore[attr-defined]
            self.requests.append(url)
            if url.startswith("file://"):
                r.continue_()  # type: ignore[attr-defined]
            else:
                r.abort()  # type: ignore[attr-defined]

        self.page.route("**/*", route)
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready]")

    def rows(self) -> list[str]:
        """Question IDs of the table rows shown, top to bottom."""
        ids: list[str] = self.page.eval_on_selector_all(
            "#q-body tr", "rows => rows.map(r => r.getAttribute('data-qid'))"
        )
        return ids


def _write(evaluation: Evaluation, path: Path) -> Path:
    path.write_text(report_page(evaluation), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def example_page(
    browser: object, example_evaluation: Evaluation, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Opened]:
    """The bundled example's report, opened from a file:// URL."""
    path = _write(example_evaluation, tmp_path_factory.mktemp("html") / "example.html")
    opened = Opened(browser, path)
    yield opened
    opened.page.close()


def test_charts_are_drawn(
    example_page: Opened, example_evaluation: Evaluation, output_dir: Path
) -> None:
    page = example_page.page
    bars = page.eval_on_selector_all(
        "#chart-funnel svg rect.bar",
        "rs => rs.map(r => [r.dataset.run, r.dataset.step, Number(r.dataset.value),"
        " r.getBoundingClientRect().width])",
    )
    steps = [s for run in example_evaluation.runs for s in funnel(run)]
    by_step = sorted(bars, key=lambda b: (b[0], b[1]))
    assert [b[:3] for b in by_step] == sorted([s.run, s.step, s.questions] for s in steps)
    # Drawn to scale: 13 questions fill 13/15 of the 520-pixel axis.
    widths = {(b[0], b[1]): b[3] for b in bars}
    assert widths[("baseline", "required evidence")] == pytest.approx(520 * 13 / 15, abs=0.5)
    assert widths[("baseline", "covered")] == pytest.approx(520 * 4 / 15, abs=0.5)
    segments = page.eval_on_selector_all(
        "#chart-stages svg rect.bar", "rs => rs.map(r => r.getBoundingClientRect().width)"
    )
    rows = sum(1 + len(d.breakdown.worst_first()) for d in diagnose(example_evaluation))
    # Every slice's segments add up to the whole axis.
    assert sum(segments) == pytest.approx(520 * rows, abs=0.5 * len(segments))
    page.locator("#funnel").screenshot(path=str(output_dir / "chart-funnel.png"))
    page.locator("#slices").screenshot(path=str(output_dir / "chart-stages.png"))
    page.screenshot(path=str(output_dir / "summary.png"), full_page=True)
    assert [u for u in example_page.requests if not u.startswith("file://")] == []
    assert example_page.console == []


def test_stage_filter_shows_exactly_that_stage(
    example_page: Opened, example_evaluation: Evaluation
) -> None:
    page = example_page.page
    for run_index, diagnosis in enumerate(diagnose(example_evaluation)):
        page.select_option("#f-run", str(run_index))
        for stage in dict.fromkeys(q.primary for q in diagnosis.questions):
            page.select_option("#f-stage", stage)
            expected = [q.question_id for q in diagnosis.questions if q.primary == stage]
            assert example_page.rows() == expected, (diagnosis.run, stage)
        page.select_option("#f-stage", "")
        assert len(example_page.rows()) == len(diagnosis.questions)
    page.select_option("#f-run", "0")


def test_tag_split_and_text_filters(example_page: Opened) -> None:
    page = example_page.page
    page.select_option("#f-tag", "multi-fact")
    assert example_page.rows() == ["two-facts", "dead-letter", "key-rotation", "regions", "purge"]
    page.select_option("#f-split", "regression")
    assert example_page.rows() == ["purge"]
    page.select_option("#f-tag", "")
    page.select_option("#f-split", "")
    page.fill("#f-text", "e-4291")
    assert example_page.rows() == ["exact-code"]
    page.fill("#f-text", "")
    assert page.inner_text("#q-body tr[data-qid='exact-code'] td.qtext") == (
        "遇到错误码 E-4291，应该等多久再重试？"
    )


def test_sorting_by_a_measure(example_page: Opened, example_evaluation: Evaluation) -> None:
    page = example_page.page
    column = TABLE_MEASURES.index("claim_support")
    header = f"#q-head th[data-col='{6 + column}']"
    page.click(header)
    run = example_evaluation.runs[0]
    values = [(r.scores["claim_support"], i, r.question_id) for i, r in enumerate(run.questions)]
    known = sorted((s.value, i, q) for s, i, q in values if s is not None)
    expected = [q for _, _, q in known] + [q for s, _, q in values if s is None]
    assert example_page.rows() == expected
    page.click(header)
    descending = [q for _, _, q in sorted(known, key=lambda t: (-t[0], t[1]))]
    assert example_page.rows() == descending + [q for s, _, q in values if s is None]
    page.reload()
    page.wait_for_selector("body[data-ready]")


def test_detail_view_shows_claims_labels_and_facts(example_page: Opened, output_dir: Path) -> None:
    page = example_page.page
    page.click("#q-body tr[data-qid='key-rotation'] a")
    page.wait_for_selector("#detail:not([hidden])")
    assert page.inner_text("#d-title") == "Question key-rotation · run baseline"
    claims = page.eval_on_selector_all(
        "#d-body tr.claim",
        "rows => rows.map(r => [r.getAttribute('data-claim'), r.getAttribute('data-label'),"
        " r.children[1].textContent])",
    )
    assert claims == [
        ["c1", "supported", "API keys expire every 90 days"],
        ["c2", "supported", "Rotate a key with lumenq keys rotate --key KEY_ID"],
        ["c3", "unsupported", "Old keys keep working for 24 hours after rotation"],
    ]
    body = page.inner_text("#d-body")
    assert "unsupported_claim: 1 of 3 claims not supported by the context: c3" in body
    facts = page.eval_on_selector_all(
        "#d-body tr.fact", "rows => rows.map(r => r.getAttribute('data-state'))"
    )
    assert facts == ["covered", "covered"]
    page.screenshot(path=str(output_dir / "question-key-rotation.png"), full_page=True)
    # The ranking marks of a leaked document.
    page.goto(page.url.split("#")[0] + "#q=pricing")
    page.wait_for_function("document.getElementById('d-title').textContent.includes('pricing')")
    marks = page.eval_on_selector_all(
        "#d-body tr.ctx[data-item='finance-discounts'] .marks .badge",
        "b => b.map(x => x.textContent)",
    )
    assert marks == ["not permitted", "in context"]


@pytest.fixture(scope="module")
def injected_page(
    browser: object, injected_evaluation: Evaluation, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Opened]:
    """The report of the example with markup planted in texts and IDs."""
    path = _write(injected_evaluation, tmp_path_factory.mktemp("html") / "injected.html")
    opened = Opened(browser, path)
    yield opened
    opened.page.close()


def test_planted_script_does_not_run(injected_page: Opened, output_dir: Path) -> None:
    page = injected_page.page
    base = page.url.split("#")[0]
    for question in ("exact-code", QUESTION_ID, "webhook-retries"):
        page.goto(base + "#q=" + quote(question, safe=""))
        page.wait_for_selector("#detail:not([hidden])")
        page.hover("#d-body")
    page.goto(base + "#q=exact-code")
    page.wait_for_function("document.getElementById('d-title').textContent.includes('exact-code')")
    body = page.inner_text("#d-body")
    assert SCRIPT in body  # shown as text
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.title() == "ragtriage report"
    assert (
        page.eval_on_selector_all("#detail script, #detail img, #q-body img", "n => n.length") == 0
    )
    page.fill("#f-text", "<script>")
    assert injected_page.rows() == ["exact-code"]
    assert [u for u in injected_page.requests if not u.startswith("file://")] == []
    # A blocked inline script would be reported by the page's content security policy.
    assert [m for m in injected_page.console if "Content Security Policy" in m] == []
    page.goto(base + "#q=webhook-retries")
    page.wait_for_function("document.getElementById('d-title').textContent.includes('webhook')")
    context = page.inner_text(f"#d-body tr.ctx[data-item='{DOC_ID}'] .doc")
    assert context.endswith(SCRIPT + IMG)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    page.screenshot(path=str(output_dir / "question-injected.png"), full_page=False)


def _eighths(root: Path, covered: dict[str, int], *, allow_missing: bool = False) -> Evaluation:
    """The starter with eight reference facts on `export-formats`, and a run per entry of
    `covered` (run name -> how many of the eight its labels call covered); with
    `allow_missing`, the runs after the first have no result for `reset-link`."""
    write_starter(root)
    evalset = json.loads((root / "evalset.json").read_text(encoding="utf-8"))
    question = next(q for q in evalset["questions"] if q["id"] == "export-formats")
    facts = [{"id": f"f{i}", "text": f"fact {i}", "evidence": ["export"]} for i in range(8)]
    question["reference_facts"] = facts
    (root / "evalset.json").write_text(json.dumps(evalset), encoding="utf-8")
    run = json.loads((root / "run.json").read_text(encoding="utf-8"))
    labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
    kept = [x for x in labels["fact_labels"] if x["question_id"] != "export-formats"]
    runs, label_files = [], []
    for name, count in covered.items():
        if allow_missing and runs:
            run["results"] = [r for r in run["results"] if r["question_id"] != "reset-link"]
            for key in ("claim_labels", "fact_labels"):
                labels[key] = [x for x in labels[key] if x["question_id"] != "reset-link"]
            kept = [x for x in kept if x["question_id"] != "reset-link"]
        run["name"] = labels["run"] = name
        labels["fact_labels"] = kept + [
            {
                "question_id": "export-formats",
                "label": {
                    "fact_id": f"f{i}",
                    "verdict": "covered" if i < count else "not_covered",
                    "labeller": {"kind": "human", "name": "reviewer-a"},
                },
            }
            for i in range(8)
        ]
        runs.append(root / f"{name}.json")
        label_files.append(root / f"{name}-labels.json")
        runs[-1].write_text(json.dumps(run), encoding="utf-8")
        label_files[-1].write_text(json.dumps(labels), encoding="utf-8")
    return load_and_evaluate(
        root / "evalset.json",
        snapshot=root / "snapshot.json",
        runs=runs,
        labels=label_files,
        allow_missing=allow_missing,
    )


def test_values_round_as_python_prints_them(
    browser: object, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("eighths")
    evaluation = _eighths(root, {"one": 1, "five": 5})
    opened = Opened(browser, _write(evaluation, root / "report.html"))
    page = opened.page
    column = 6 + TABLE_MEASURES.index("fact_coverage")
    cell = f"#q-body tr[data-qid='export-formats'] td:nth-child({column + 1})"
    shown = [page.inner_text(cell)]
    page.select_option("#f-run", "1")
    shown.append(page.inner_text(cell))
    # Python's f"{0.125:.2f}" is 0.12, as the terminal and Markdown print it; toFixed gave 0.13.
    assert shown == ["0.12", "0.62"]
    changed = page.inner_text("#changes-table tr[data-qid='export-formats'] .vchange")
    assert changed == "fact_coverage 0.12→0.62"
    assert opened.console == []
    page.close()


def test_a_question_without_a_result_is_not_diagnosed(
    browser: object, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("missing")
    evaluation = _eighths(root, {"whole": 1, "part": 1}, allow_missing=True)
    path = _write(evaluation, root / "report.html")
    opened = Opened(browser, path)
    page = opened.page
    page.select_option("#f-run", "1")
    page.click("#q-body tr[data-qid='reset-link'] a")
    page.wait_for_selector("#detail:not([hidden])")
    assert page.inner_text("#d-title") == "Question reset-link · run part"
    assert page.eval_on_selector_all("#d-body ul.why li", "n => n.map(x => x.textContent)") == [
        "Not diagnosed (no result)."
    ]
    # Before, the sections read like an empty answer: "no / no / no" evidence, "Final ranking
    # (0 items)", "Empty context.", "(no answer recorded)", "Claims not extracted.", facts
    # "unlabelled". The question's own evidence groups and facts are still listed.
    sections = page.eval_on_selector_all(
        "#d-body .dsec",
        "ss => ss.slice(2).map(s => [s.querySelector('h3').textContent,"
        " Array.from(s.querySelectorAll('p, td, .answer')).map(x => x.textContent)])",
    )
    none = "No result: the run has no entry for this question."
    assert sections == [
        ["Required evidence", ["1", "password-reset", "no result", "no result", "no result"]],
        ["Final ranking", [none]],
        ["Context sent to the model", [none]],
        ["Answer", [none]],
        ["Reference facts", ["thirty-minutes", "30 minutes", "no result"]],
    ]
    assert opened.console == []
    page.close()


def test_a_malformed_fragment_shows_the_table(
    browser: object, example_evaluation: Evaluation, tmp_path: Path
) -> None:
    path = _write(example_evaluation, tmp_path / "report.html")
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(path.as_uri() + "#q=%E0%A4%A")
    page.wait_for_selector("body[data-ready]", timeout=5000)
    state = page.evaluate(
        "[document.getElementById('detail').hidden, document.querySelectorAll('#q-body tr').length]"
    )
    assert (state, errors) == ([True, len(example_evaluation.questions)], [])
    page.close()


def test_ids_and_tags_named_like_object_properties(browser: object, tmp_path: Path) -> None:
    """A cited document `constructor` or `__proto__` outside the context is an invalid
    citation (red), and a tag `__proto__` is in the tag filter like any other."""
    paths = example_paths()
    snapshot = json.loads(paths.snapshot.read_text(encoding="utf-8"))
    snapshot["documents"] += [
        {"id": name, "text": f"about {name}", "title": name, "status": "current"}
        for name in ("constructor", "__proto__")
    ]
    evalset = json.loads(paths.evalset.read_text(encoding="utf-8"))
    question = next(q for q in evalset["questions"] if q["id"] == "regions")
    question["tags"] += ["__proto__", "constructor"]
    run = json.loads(paths.runs[0].read_text(encoding="utf-8"))
    result = next(r for r in run["results"] if r["question_id"] == "regions")
    result["claims"][0]["citations"] = ["constructor"]
    result["claims"][1]["citations"] = ["__proto__"]
    files = {"snapshot.json": snapshot, "evalset.json": evalset, "run.json": run}
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    evaluation = load_and_evaluate(
        tmp_path / "evalset.json", snapshot=tmp_path / "snapshot.json", runs=[tmp_path / "run.json"]
    )
    opened = Opened(browser, _write(evaluation, tmp_path / "report.html"))
    page = opened.page
    tags = page.eval_on_selector_all("#f-tag option", "os => os.map(o => o.value)")
    assert ("__proto__" in tags, "constructor" in tags) == (True, True)
    page.select_option("#f-tag", "__proto__")
    assert opened.rows() == ["regions"]
    page.goto(page.url.split("#")[0] + "#q=regions")
    page.wait_for_selector("#detail:not([hidden])")
    cites = page.eval_on_selector_all(
        "#d-body tr.claim .badge.cite", "bs => bs.map(b => [b.textContent, b.className])"
    )
    # Before, both showed as valid: `{}["constructor"]` is the Object function.
    assert cites[:2] == [
        ["constructor", "badge cite bad"],
        ["__proto__", "badge cite bad"],
    ]
    assert opened.console == []
    page.close()


def test_questions_without_a_stage_sort_last(
    browser: object, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("stage-sort")
    evaluation = _eighths(root, {"whole": 1, "part": 1}, allow_missing=True)
    opened = Opened(browser, _write(evaluation, root / "report.html"))
    page = opened.page
    page.select_option("#f-run", "1")
    stages = "rows => rows.map(r => [r.getAttribute('data-qid'), r.children[5].textContent])"
    shown = []
    for _ in range(2):
        page.click("#q-head th[data-col='5']")
        shown.append(page.eval_on_selector_all("#q-body tr", stages)[-1])
    # Not diagnosed (no result): no stage, last in both directions; before, first ascending.
    assert shown == [["reset-link", ""], ["reset-link", ""]]
    assert opened.console == []
    page.close()
