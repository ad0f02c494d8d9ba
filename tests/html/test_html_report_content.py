"""The HTML report without a browser: escaping, determinism, pinned data, the CLI."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from html_report_injection import DOC_ID, IMG, QUESTION_ID, SCRIPT, TAG

import ragtriage
from ragtriage import RequestError
from ragtriage.api import report_page
from ragtriage.cli.main import cli
from ragtriage.columnar import load_and_evaluate
from ragtriage.compare import compare, default_comparison
from ragtriage.evaluation import Evaluation
from ragtriage.example import example_paths
from ragtriage.render.html import (
    funnel,
    json_for_script,
    render_html,
    report_data,
)
from ragtriage.render.html._payload import CITED, IN_CONTEXT, NOT_PERMITTED, REQUIRED, STALE


def _data_json(page: str) -> dict[str, object]:
    match = re.search(r'<script type="application/json" id="rt-data">(.*?)</script>', page, re.S)
    assert match is not None
    data: dict[str, object] = json.loads(match.group(1))
    return data


def test_json_for_script_cannot_close_the_element_and_round_trips() -> None:
    value = {"text": "</script><!-- & <b>x</b> 中文", "n": 1}
    text = json_for_script(value)
    assert text == (
        '{"n":1,"text":"\\u003c/script\\u003e\\u003c!-- \\u0026 '
        '\\u003cb\\u003ex\\u003c/b\\u003e 中文"}'
    )
    assert json.loads(text) == value


def test_planted_markup_is_data_not_html(injected_evaluation: Evaluation) -> None:
    page = report_page(injected_evaluation)
    # The only elements of these kinds are the report's own: the JSON block and the script.
    assert page.count("<script") == 2
    assert page.count("</script>") == 2
    # Outside the page script (it builds elements from strings).
    markup = re.sub(r"<script>.*?</script>", "<script></script>", page, flags=re.S)
    assert "<img" not in markup
    assert "<b " not in markup
    assert "<script>window" not in page
    assert "\\u003cscript\\u003ewindow.__pwned=1" in page
    data = _data_json(page)
    questions = data["questions"]
    assert isinstance(questions, list)
    by_id = {q["id"]: q for q in questions}
    assert QUESTION_ID in by_id
    assert by_id["exact-code"]["t"].endswith(" " + SCRIPT)
    assert TAG in by_id["exact-code"]["g"]
    docs = data["docs"]
    assert isinstance(docs, dict)
    assert docs[DOC_ID][3].endswith(SCRIPT + IMG)


def test_chinese_text_is_kept_as_utf8(example_evaluation: Evaluation) -> None:
    page = report_page(example_evaluation)
    assert '<meta charset="utf-8">' in page
    assert "遇到错误码 E-4291，应该等多久再重试？" in page


def test_same_inputs_give_the_same_bytes() -> None:
    paths = example_paths()
    first = load_and_evaluate(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    second = load_and_evaluate(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    assert report_page(first) == report_page(second)


def test_page_is_self_contained(example_evaluation: Evaluation) -> None:
    page = report_page(example_evaluation)
    assert re.findall(r"<(?:link|iframe|object|embed)\b", page) == []
    assert re.findall(r"<script[^>]*\bsrc=", page) == []
    assert "connect-src &#39;none&#39;" in page
    assert page.startswith("<!DOCTYPE html>\n")


def test_ranking_marks(example_evaluation: Evaluation) -> None:
    data = report_data(example_evaluation)
    ids = [q["id"] for q in data["questions"]]
    baseline = data["results"][0]
    pricing = baseline[ids.index("pricing")]
    assert pricing["cx"][1][:2] == ["finance-discounts", NOT_PERMITTED | IN_CONTEXT]
    assert pricing["p"] == "permission_leak"
    stale = baseline[ids.index("stale-retention")]
    assert [row[:2] for row in stale["rk"]] == [
        ["retention-v1", STALE | IN_CONTEXT | CITED],
        ["retention-v2", REQUIRED | IN_CONTEXT],
        ["log-export", IN_CONTEXT],
    ]
    purge = baseline[ids.index("purge")]
    assert purge["cd"] == [["sdk-legacy", STALE, 4]]
    # A dropped candidate's document is listed, for the detail view's document column.
    assert data["docs"]["sdk-legacy"] == [
        "withdrawn",
        "Python SDK 1.x",
        "1.x",
        "The Python SDK 1.x is withdrawn; it no longer receives fixes.",
    ]
    rotation = baseline[ids.index("key-rotation")]
    assert [(c[0], c[3]) for c in rotation["cl"]] == [
        ("c1", "supported"),
        ("c2", "supported"),
        ("c3", "unsupported"),
    ]


def test_funnel_counts(example_evaluation: Evaluation) -> None:
    runs = example_evaluation.runs
    steps = [[(s.step, s.questions, s.total) for s in funnel(run)] for run in runs]
    assert steps == [
        [
            ("required evidence", 13, 13),
            ("among candidates", 12, 13),
            ("after reranking", 11, 13),
            ("in context", 10, 13),
            ("supported", 6, 13),
            ("covered", 4, 13),
        ],
        [
            ("required evidence", 13, 13),
            ("among candidates", 13, 13),
            ("after reranking", 13, 13),
            ("in context", 12, 13),
            ("supported", 12, 13),
            ("covered", 12, 13),
        ],
    ]


def test_changes_list_regressions_first(example_evaluation: Evaluation) -> None:
    comparison = default_comparison(example_evaluation)
    changes = report_data(example_evaluation, comparison)["changes"]
    assert changes[0][:6] == [1, "improved", "purge", "regressed", "ok", "truncation_loss"]
    assert ["evidence_recall", "1.00", "0.00", "regressed"] in changes[0][6]
    statuses = [row[3] for row in changes]
    order = ["regressed", "mixed", "improved", "changed"]
    assert statuses == sorted(statuses, key=order.index)
    assert "unchanged" not in statuses


def test_report_command_writes_the_page(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["report", "--example", "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    again = tmp_path / "evaluate.html"
    result = CliRunner().invoke(cli, ["evaluate", "--example", "--html", str(again)])
    assert result.exit_code == 0, result.output
    assert again.read_bytes() == out.read_bytes()


def test_report_command_needs_a_dataset(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", "--output", str(tmp_path / "x.html")])
    assert result.exit_code == 2
    assert "Error: give DATASET or --example" in result.output


def test_report_command_on_the_article_fixture(article_fixture: Path, tmp_path: Path) -> None:
    out = tmp_path / "article.html"
    args = ["report", str(article_fixture), "-k", "2", "--output", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    data = _data_json(out.read_text(encoding="utf-8"))
    assert [r["name"] for r in data["runs"]] == ["synthetic-baseline", "synthetic-corrected"]  # type: ignore[index]


def test_one_run_has_no_comparison_section(example_evaluation: Evaluation) -> None:
    single = dataclasses.replace(example_evaluation, runs=example_evaluation.runs[:1])
    page = report_page(single)
    assert 'id="changes"' not in page
    assert _data_json(page)["changes"] == []


def _quiet(notice: object) -> None:
    """Notices (the holdout left out) are not checked here."""


def test_a_comparison_not_made_from_the_evaluation_is_refused(
    example_evaluation: Evaluation, article_fixture: Path
) -> None:
    # Before, the page showed the article's runs beside the example's comparison.
    of_example = ragtriage.compare_files(example=True, resamples=200, notify=_quiet)
    article = ragtriage.evaluate_files(article_fixture, notify=_quiet)
    expected = (
        "comparison: expected one made from this evaluation, of its runs (synthetic-baseline, "
        "synthetic-corrected; ragtriage.compare.compare(evaluation) makes one); found one of "
    )
    with pytest.raises(RequestError) as other_files:
        report_page(article, comparison=of_example)
    assert str(other_files.value) == expected + (
        "input files the evaluation did not read (ragtriage:example/data/evalset.json, "
        "ragtriage:example/data/snapshot.json, ragtriage:example/data/runs/baseline.json, "
        "ragtriage:example/data/runs/improved.json), runs it lacks ('baseline', 'improved')"
    )
    with pytest.raises(RequestError) as rendered:  # the renderer refuses it too
        render_html(article, comparison=of_example)
    assert str(rendered.value) == str(other_files.value)
    # The same files (read from other paths), but other questions.
    tagged = ragtriage.compare_files(
        example=True, tags=["no-answer"], resamples=200, notify=_quiet
    )
    with pytest.raises(RequestError) as other_questions:
        report_page(example_evaluation, comparison=tagged)
    assert str(other_questions.value) == (
        "comparison: expected one made from this evaluation, of its runs (baseline, improved; "
        "ragtriage.compare.compare(evaluation) makes one); found one of other questions (2; "
        "the evaluation has 17)"
    )
    with pytest.raises(RequestError) as not_one:
        report_page(example_evaluation, comparison={})  # type: ignore[arg-type]
    assert str(not_one.value) == (
        "comparison: expected a Comparison (ragtriage.compare.compare or "
        "ragtriage.compare_files makes one); found dict"
    )
    # A comparison of the evaluation's runs, in any order, is shown.
    reversed_runs = compare(example_evaluation, ["improved", "baseline"], resamples=200)
    assert report_page(example_evaluation, comparison=reversed_runs) != report_page(
        example_evaluation
    )


def test_control_and_bidi_characters_are_shown_escaped(tmp_path: Path) -> None:
    paths = example_paths()
    # U+202E would reverse the text after the ID; an escape sequence and a bell are
    # written as the terminal and Markdown write them (`ragtriage._console.visible`).
    planted = "two-facts\u202e\u200b"
    runs = []
    for run_path in paths.runs:
        text = run_path.read_text(encoding="utf-8")
        run = json.loads(text.replace('"two-facts"', json.dumps(planted)))
        run["provenance"]["retriever"]["version"] = "1\x1b[2J"
        runs.append(tmp_path / run_path.name)
        runs[-1].write_text(json.dumps(run), encoding="utf-8")
    evalset = json.loads(
        paths.evalset.read_text(encoding="utf-8").replace('"two-facts"', json.dumps(planted))
    )
    evalset["questions"][1]["tags"].append("rtl\u202e")
    (tmp_path / "evalset.json").write_text(json.dumps(evalset), encoding="utf-8")
    evaluation = load_and_evaluate(tmp_path / "evalset.json", snapshot=paths.snapshot, runs=runs)
    page = render_html(evaluation, title="a\x1b[31mb\x07")
    assert [c for c in "\x1b\x07\u202e\u200b" if c in page] == []
    assert "<title>a\\x1b[31mb\\x07</title>" in page
    assert "<h1>a\\x1b[31mb\\x07</h1>" in page
    assert "<b>retriever</b> bm25 1\\x1b[2J" in page
    assert 'dominant-baseline="middle">tag:rtl\\u202e</text>' in page  # the chart
    data = _data_json(page)
    assert "two-facts\\u202e\\u200b" in [q["id"] for q in data["questions"]]  # type: ignore[attr-defined,index]
