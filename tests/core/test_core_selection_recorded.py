"""Every report says which questions were asked for: `selection` in each JSON report
(`all questions` without a filter), and a note or a count's suffix in the text formats."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ragtriage.api import evaluate_files
from ragtriage.cli.main import cli
from ragtriage.example import example_paths
from ragtriage.filters import QuestionSelection, evaluate_selected
from ragtriage.loading import load_dataset


def _run(*args: str) -> str:
    outcome = CliRunner().invoke(cli, list(args))
    assert outcome.exit_code in (0, 1), outcome.output
    return outcome.stdout


def test_each_json_report_records_the_selection() -> None:
    for command in ("evaluate", "diagnose", "compare"):
        assert json.loads(_run(command, "--example", "--format", "json"))["selection"] == (
            "all questions"
        )
        chosen = _run(command, "--example", "--tag", "multi-fact", "--split", "dev",
                      "--format", "json")
        assert json.loads(chosen)["selection"] == "tag multi-fact and split dev", command
    gate = ["gate", "--example", "--candidate", "improved", "--format", "json"]
    assert json.loads(_run(*gate))["selection"] == "all questions"
    assert json.loads(_run(*gate, "--id", "p*"))["selection"] == "id p*"


def test_the_text_reports_say_a_selection_and_nothing_without_one(tmp_path: Path) -> None:
    picked = ("--example", "--tag", "multi-fact")
    assert "note: only the questions selected by tag multi-fact are scored" in _run(
        "evaluate", *picked
    )
    assert "Note: only the questions selected by tag multi-fact are scored" in _run(
        "evaluate", *picked, "--format", "markdown"
    )
    assert _run("diagnose", *picked).startswith(
        "note: only the questions selected by tag multi-fact are diagnosed\n"
    )
    assert "Metrics over paired questions (of 5, selected by tag multi-fact):" in _run(
        "compare", *picked, "--format", "markdown"
    )
    junit = tmp_path / "gate.xml"
    gate = _run("gate", *picked, "--candidate", "improved", "--junit", str(junit))
    assert "5 questions, selected by tag multi-fact" in " ".join(gate.split())
    assert '<property name="selection" value="tag multi-fact" />' in junit.read_text()
    for command in ("evaluate", "diagnose", "compare"):
        assert "selected by" not in _run(command, "--example", "--format", "markdown")


def test_the_python_api_records_the_selection_as_the_command_does() -> None:
    assert evaluate_files(example=True, tags=["multi-fact"]).selection == "tag multi-fact"
    assert evaluate_files(example=True).selection == "all questions"
    paths = example_paths()
    dataset = load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    chosen = evaluate_selected(dataset, QuestionSelection(ids=("p*",)))
    assert chosen.selection == "id p*"


def test_a_value_that_would_read_as_more_filters_is_quoted_in_the_selection() -> None:
    # Before, --tag 'x and split dev' read as --tag x --split dev, --id 'a or b' as two IDs.
    assert QuestionSelection(tags=("x and split dev",)).describe() == "tag 'x and split dev'"
    assert QuestionSelection(tags=("x",), splits=("dev",)).describe() == "tag x and split dev"
    assert QuestionSelection(ids=("a or b", "c")).describe() == "id 'a or b' or c"
    assert QuestionSelection(ids=("or", "x or", " q9", "q*1")).describe() == (
        "id 'or' or 'x or' or ' q9' or q*1"
    )
    chosen = _run("evaluate", "--example", "--tag", "multi-fact and split dev", "--format", "json")
    assert json.loads(chosen)["selection"] == "tag 'multi-fact and split dev'"
