"""`--allow-missing`: a run without a result for some questions, in every command and format.

Strict by default (the run is refused); with the option the questions without a result are
counted and listed as "no result" everywhere, never scored, and compare pairs only the
questions both runs answered.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from core_builders import claim, doc, question, result, write_files

import ragtriage
from ragtriage.cli.main import cli
from ragtriage.request import Request

DOCS = [doc("d1", "alpha"), doc("d2", "beta"), doc("d3", "gamma")]
QUESTIONS = [
    question("q1", evidence=[["d1"]]),
    question("q2", evidence=[["d2"]]),
    question("q3", evidence=[["d3"]]),
]


def _answer(qid: str, found: str) -> dict[str, Any]:
    return result(
        qid, [found], context=[found], claims=[claim("x", [found], "supported", [found])]
    )


RUNS = {
    "full": [_answer("q1", "d2"), _answer("q2", "d2"), _answer("q3", "d3")],
    "part": [_answer("q1", "d1"), _answer("q3", "d3")],
}


@pytest.fixture
def args(tmp_path: Path) -> list[str]:
    return write_files(tmp_path, DOCS, QUESTIONS, RUNS)


def _run(command: str, args: list[str], *extra: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(cli, [command, *args, *extra])
    return out.exit_code, out.stdout, out.stderr


def test_a_partial_run_is_refused_without_the_option(args: list[str]) -> None:
    for command in ("evaluate", "diagnose", "compare", "report"):
        code, _, stderr = _run(command, args, *(["-o", "x.html"] if command == "report" else []))
        assert code == 2
        assert stderr.splitlines()[-1].endswith(
            "part.json: question 'q2': results: expected a result for every question "
            "(run 'part'; or --allow-missing); found no result"
        )


def test_evaluate_json_lists_no_result_and_scores_only_answered(args: list[str]) -> None:
    code, stdout, stderr = _run("evaluate", args, "--allow-missing", "--format", "json")
    assert (code, stderr) == (0, "")
    data = json.loads(stdout)
    assert data["options"]["allow_missing"] is True
    full, part = data["runs"]
    assert (full["no_result"], part["no_result"]) == ([], ["q2"])
    assert [q["id"] for q in part["questions"]] == ["q1", "q3"]
    recall = part["summary"]["evidence_recall"]
    assert (recall["numerator"], recall["denominator"], recall["not_applicable"]) == (2, 2, 0)
    assert full["summary"]["evidence_recall"]["denominator"] == 3


def test_evaluate_table_and_markdown_say_no_result(args: list[str]) -> None:
    note = "run 'part': no result for 1 question, not scored: q2"
    _, table, _ = _run("evaluate", args, "--allow-missing")
    assert f"note: {note}" in table.splitlines()
    row = [line for line in table.splitlines() if line.startswith("│ q2")][-1]
    assert [cell.strip() for cell in row.strip("│").split("│")] == [
        "q2", "no result", "-", "-", "-", "-", "no result"
    ]
    _, markdown, _ = _run("evaluate", args, "--allow-missing", "--format", "markdown")
    assert f"Note: {note}" in markdown.splitlines()
    assert "| q2 | no result | - | - | - | - | - | - | no result |" in markdown.splitlines()


def test_diagnose_lists_no_result_in_every_format(args: list[str]) -> None:
    _, stdout, _ = _run("diagnose", args, "--allow-missing", "--format", "json")
    runs = json.loads(stdout)["runs"]
    assert [(r["name"], r["no_result"]) for r in runs] == [("full", []), ("part", ["q2"])]
    assert [q["id"] for q in runs[1]["questions"]] == ["q1", "q3"]
    _, table, _ = _run("diagnose", args, "--allow-missing")
    assert "note: run 'part': no result for 1 question, not scored: q2" in table
    _, markdown, _ = _run("diagnose", args, "--allow-missing", "--format", "markdown")
    assert (
        "- **part**: 0 of 2 questions fail (0%); primary stages: -; 1 with no result"
        in markdown.splitlines()
    )


def test_compare_pairs_only_answered_questions_and_says_how_many_were_left_out(
    args: list[str],
) -> None:
    code, stdout, stderr = _run("compare", args, "--allow-missing", "--format", "json")
    assert (code, stderr) == (0, "")
    data = json.loads(stdout)
    assert data["questions"] == 3
    assert data["warnings"] == []
    pair = data["comparisons"][0]
    assert pair["no_result"] == {"base": [], "candidate": ["q2"]}
    assert [q["id"] for q in pair["questions"]] == ["q1", "q3"]
    recall = pair["metrics"]["evidence_recall"]
    assert (recall["paired"], recall["unpaired"], recall["base"], recall["candidate"]) == (
        2, 1, 0.5, 1.0
    )
    line = "questions left out (no result): 0 of base 'full'; 1 of candidate 'part' (q2)"
    _, table, _ = _run("compare", args, "--allow-missing")
    assert line in table.splitlines()
    _, markdown, _ = _run("compare", args, "--allow-missing", "--format", "markdown")
    assert f"{line}." in markdown.splitlines()


def test_compare_base_without_a_result_is_counted_on_the_base_side(args: list[str]) -> None:
    _, stdout, _ = _run(
        "compare", args, "--allow-missing", "--baseline", "part", "--format", "json"
    )
    assert json.loads(stdout)["comparisons"][0]["no_result"] == {
        "base": ["q2"],
        "candidate": [],
    }


def test_the_old_option_name_is_gone(args: list[str]) -> None:
    code, _, stderr = _run("compare", args, "--allow-different-questions")
    assert code == 2
    assert "Error: No such option '--allow-different-questions'." in stderr


def test_gate_lists_questions_it_did_not_gate(args: list[str], tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('name = "p"\n\n[[threshold]]\nmetric = "evidence_recall"\nmin = 0.5\n')
    extra = ["--allow-missing", "--policy", str(policy), "--candidate", "part"]
    code, stdout, _ = _run("gate", args, *extra, "--format", "json")
    assert code == 0
    data = json.loads(stdout)
    assert (data["questions"], data["no_result"]) == (2, ["q2"])
    _, table, _ = _run("gate", args, *extra)
    assert "2 questions (not gated, no result: q2)" in " ".join(table.split())


def test_html_report_shows_no_result_for_the_missing_question(
    args: list[str], tmp_path: Path
) -> None:
    page = tmp_path / "r.html"
    code, _, _ = _run("report", args, "--allow-missing", "-o", str(page))
    assert code == 0
    text = page.read_text(encoding="utf-8")
    assert "Note: run &#39;part&#39;: no result for 1 question, not scored: q2" in text
    found = re.search(r'<script type="application/json"[^>]*>(.*?)</script>', text, re.S)
    assert found is not None
    data = json.loads(found.group(1))
    assert [q["id"] for q in data["questions"]] == ["q1", "q2", "q3"]
    assert data["results"][1][1] == {"nr": 1, "o": "no result", "v": [None] * 6, "vt": ["n/a"] * 6}
    assert data["results"][0][1]["o"] == "answered"


def test_python_api_takes_the_same_name(args: list[str]) -> None:
    paths = {"snapshot": args[2], "runs": [args[4], args[6]]}
    assert Request.build(args[0], allow_missing=True, **paths).allow_missing is True  # type: ignore[arg-type]
    evaluation = ragtriage.evaluate_files(args[0], allow_missing=True, **paths)  # type: ignore[arg-type]
    assert [run.no_result for run in evaluation.runs] == [(), ("q2",)]
    comparison = ragtriage.compare_files(args[0], allow_missing=True, **paths)  # type: ignore[arg-type]
    assert comparison.pairs[0].candidate_no_result == ("q2",)
    with pytest.raises(ragtriage.InputError):
        ragtriage.evaluate_files(args[0], **paths)  # type: ignore[arg-type]
