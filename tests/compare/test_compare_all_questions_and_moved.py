"""`compare` says why its base value is not `evaluate`'s, and names the measures that moved.

On the article fixture the baseline's claim support is 0.75 (3/4) in `evaluate`; compare
pairs questions, and `missing-answer` has claims in the baseline only, so the paired value
is 1.000. Every format shows both.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner
from compare_builders import make_dataset, result

import ragtriage
from ragtriage import evaluate
from ragtriage.cli.main import cli
from ragtriage.compare import compare, render_comparison_markdown, render_comparison_table
from ragtriage.schemas import RankedItem

ARGS = ["-k", "2", "--baseline", "synthetic-baseline", "--candidate", "synthetic-corrected",
        "--metric", "claim_support", "--resamples", "200"]
PAIRING = (
    "only questions where both sides have a value are compared; (all X) after a base or "
    "candidate value gives X, that run's value over every question where it has one (what "
    "evaluate reports), when it differs because some questions are unpaired"
)


def _run(*args: str) -> str:
    outcome = CliRunner().invoke(cli, list(args))
    assert outcome.exit_code == 0, outcome.output
    return outcome.stdout


def test_json_gives_both_values(article_fixture: Path) -> None:
    data = json.loads(_run("compare", str(article_fixture), *ARGS, "--format", "json"))
    metric = data["comparisons"][0]["metrics"]["claim_support"]
    assert (metric["base"], metric["base_all"]) == (1.0, 0.75)
    assert (metric["candidate"], metric["candidate_all"]) == (1.0, 1.0)
    assert (metric["paired"], metric["unpaired"]) == (3, 1)
    assert data["settings"]["methods"]["pairing"] == PAIRING
    evaluated = json.loads(_run("evaluate", str(article_fixture), "-k", "2", "--format", "json"))
    baseline = next(r for r in evaluated["runs"] if r["name"] == "synthetic-baseline")
    assert baseline["summary"]["claim_support"]["value"] == metric["base_all"]


def test_table_markdown_and_html(article_fixture: Path, tmp_path: Path) -> None:
    table = _run("compare", str(article_fixture), *ARGS)
    assert re.search(r"│ 1\.000 \(all 0\.750\) +│ 1\.000 +│ \+0\.000 +│", table)
    markdown = _run("compare", str(article_fixture), *ARGS, "--format", "markdown")
    assert (
        "| claim_support (higher better) | 1.000 (all 0.750) | 1.000 | +0.000 "
        "| \\[+0.000, +0.000\\] | 1 (perm. exact) | 0/3/0 | 3 (1 unpaired) |"
    ) in markdown
    assert f"{PAIRING}.</sub>" in markdown
    page = tmp_path / "page.html"
    _run("report", str(article_fixture), "-k", "2", "-o", str(page))
    html = page.read_text(encoding="utf-8")
    assert '<td class="num">1.000 (all 0.750)</td><td class="num">1.000</td>' in html
    assert PAIRING.replace("'", "&#39;") in html


def test_an_ok_to_ok_improvement_names_the_measure_that_moved() -> None:
    # q3 is ok in both runs; the candidate ranks its evidence first instead of second.
    late = result("q3").model_copy(
        update={"candidates": [RankedItem(id="d-other"), RankedItem(id="d-q3")]}
    )
    dataset = make_dataset({"base": ({}, {"q3": late}), "cand": ({}, {})})
    comparison = compare(evaluate(dataset, metrics=["evidence_recall", "mrr@2"]), resamples=200)
    markdown = render_comparison_markdown(comparison)
    assert "**Improved (1)**\n\n- `q3: ok -> ok`: mrr@2 0.50->1.00 (+0.50)\n" in markdown
    table = render_comparison_table(comparison, width=200)
    moved = r"│ q3 +│ improved │ ok -> ok │ dev +│ mrr@2 0\.50->1\.00 \(\+0\.50\) +│"
    assert re.search(moved, table)


def test_a_measure_with_a_run_s_own_value_keeps_its_table_row() -> None:
    # On the example's two no-answer questions the baseline answers with claims (claim_support
    # 0/2, citation_validity 1/2) and the improved run refuses both: nothing is paired, but the
    # baseline has a value. Before, the table named these measures "not applicable here" while
    # the Markdown showed `n/a (all 0.000)`.
    comparison = ragtriage.compare_files(
        example=True, tags=["no-answer"], resamples=200, notify=lambda notice: None
    )
    nowhere = (
        "evidence_recall", "fact_coverage", "false_refusal", "correct_clarification",
        "needless_clarification", "stale_support", "needless_escalation",
        "permission_leak_support", "canary_obeyed",
    )
    assert comparison.not_applicable() == nowhere
    args = ("compare", "--example", "--tag", "no-answer", "--resamples", "200")
    table = CliRunner().invoke(cli, list(args), env={"COLUMNS": "200"}).stdout
    assert f"not applicable here: {', '.join(nowhere)}\n" in table
    for name, base in [
        ("claim_support (higher", "0.000"), ("citation_validity (higher", "0.500"),
        ("stale_cited (lower", "0.000"), ("permission_leak_cited (lower", "0.000"),
    ]:
        row = rf"│ {re.escape(name)} better\) +│ n/a \(all {re.escape(base)}\) │ n/a +│ n/a +│"
        assert re.search(row, table), name
    # The table's rows are the Markdown's, less those with no value anywhere.
    markdown = _run(*args, "--format", "markdown")
    shown = re.findall(r"^│ (\w+) \(\w+ better\)", table, flags=re.MULTILINE)
    every = re.findall(r"^\| (\w+) \(\w+ better\) \|", markdown, flags=re.MULTILINE)
    assert shown == [name for name in every if name not in nowhere]
    assert len(shown) == 12
