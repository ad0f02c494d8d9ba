"""The article fixture reproduces the article's published table exactly (the Done-when list)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli
from ragtriage.columnar import load_and_evaluate
from ragtriage.errors import InputError


@pytest.fixture(scope="module")
def report(article_fixture: Path) -> dict[str, Any]:
    """The JSON report of the article fixture at -k 2, via the CLI."""
    out = CliRunner().invoke(cli, ["evaluate", str(article_fixture), "-k", "2", "--format", "json"])
    assert out.exit_code == 0, out.output
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def _run(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in report["runs"] if r["name"] == name)


BASELINE = {
    "evidence_recall": (0.5, 1.5, 3),
    "fact_coverage": (0.5, 1.5, 3),
    "claim_support": (0.75, 3, 4),
    "correct_refusal": (0.0, 0, 1),
    "false_refusal": (0.0, 0, 3),
    "citation_validity": (0.75, 3, 4),
}
CORRECTED = {
    "evidence_recall": (1.0, 3, 3),
    "fact_coverage": (1.0, 3, 3),
    "claim_support": (1.0, 4, 4),
    "correct_refusal": (1.0, 1, 1),
    "false_refusal": (0.0, 0, 3),
    "citation_validity": (1.0, 4, 4),
}


@pytest.mark.parametrize(("run", "expected"), [("synthetic-baseline", BASELINE), ("synthetic-corrected", CORRECTED)])
def test_article_summary_matches_the_article(report: dict[str, Any], run: str, expected: dict[str, tuple[float, float, float]]) -> None:
    summary = _run(report, run)["summary"]
    got = {m: (summary[m]["value"], summary[m]["numerator"], summary[m]["denominator"]) for m in expected}
    assert got == expected


def test_article_aggregates_name_averaging_and_not_applicable(report: dict[str, Any]) -> None:
    summary = _run(report, "synthetic-baseline")["summary"]
    assert summary["evidence_recall"] == {
        "value": 0.5, "numerator": 1.5, "denominator": 3, "averaging": "macro", "not_applicable": 1,
    }
    assert summary["claim_support"] == {
        "value": 0.75, "numerator": 3, "denominator": 4, "averaging": "micro", "not_applicable": 0,
        "cannot_judge": 0,
    }
    corrected = _run(report, "synthetic-corrected")["summary"]
    # the corrected run refuses missing-answer: no claims there, so support is n/a for it
    assert corrected["claim_support"]["not_applicable"] == 1


def test_article_per_question_baseline(report: dict[str, Any]) -> None:
    rows = {q["id"]: q for q in _run(report, "synthetic-baseline")["questions"]}
    stale = rows["stale-version"]
    assert (stale["claim_support"], stale["evidence_recall"], stale["fact_coverage"]) == (1.0, 0.0, 0.0)
    two = rows["two-facts"]
    assert (two["claim_support"], two["evidence_recall"], two["fact_coverage"]) == (1.0, 0.5, 0.5)
    missing = rows["missing-answer"]
    assert (missing["correct_refusal"], missing["false_refusal"], missing["evidence_recall"]) == (False, None, None)


def test_article_defaults_to_k2(article_fixture: Path) -> None:
    result = load_and_evaluate(article_fixture)
    assert [r.k for r in result.runs] == [2, 2]
    assert result.runs[0].summary["evidence_recall"].value == 0.5


def test_article_k1_is_refused_with_the_exact_message(article_fixture: Path) -> None:
    out = CliRunner().invoke(cli, ["evaluate", str(article_fixture), "-k", "1"])
    assert out.exit_code == 2
    assert out.stdout == ""
    assert out.stderr == (
        "Error: 1 problem found in the input:\n"
        f"- {article_fixture}: question 'two-facts': "
        "runs[synthetic-corrected].claims[c2].review.supportedByIds: "
        "expected IDs in the top-1 context (retention-v2); found 'export-v2'\n"
    )


def test_article_k1_library_raises_input_error(article_fixture: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_and_evaluate(article_fixture, k=1)
    (problem,) = caught.value.problems
    assert (problem.question_id, problem.found) == ("two-facts", "'export-v2'")


@pytest.mark.parametrize(("place", "field"), [
    (("runs", 0, "results", 0, "claims", 0, "text"),
     "question 'exact-code': runs[synthetic-baseline].claims[c1].text"),
    (("runs", 0, "results", 0, "claims", 0, "citationIds", 0),
     "question 'exact-code': runs[synthetic-baseline].claims[c1].citationIds[0]"),
    (("runs", 0, "name"), "runs[0].name"),
    (("cases", 0, "question"), "question 'exact-code': question"),
])
def test_an_empty_text_the_native_models_refuse_is_refused_by_the_article_reader(
    article_fixture: Path, tmp_path: Path, place: tuple[Any, ...], field: str
) -> None:
    # These were accepted by the article schema, then refused by the native model they are
    # converted into: a traceback (exit status 1).
    data = json.loads(article_fixture.read_text(encoding="utf-8"))
    target = data
    for key in place[:-1]:
        target = target[key]
    if place[-1] == 0:
        target.insert(0, "")
    else:
        target[place[-1]] = ""
    path = tmp_path / "article.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = CliRunner().invoke(cli, ["evaluate", str(path)])
    assert (out.exit_code, out.stderr) == (2, (
        "Error: 1 problem found in the input:\n"
        f"- {path}: {field}: expected a non-empty string; found an empty string\n"
    ))
