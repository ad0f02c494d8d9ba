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
        "id ' q9' or 'or' or q*1 or 'x or'"
    )
    chosen = _run("evaluate", "--example", "--tag", "multi-fact and split dev", "--format", "json")
    assert json.loads(chosen)["selection"] == "tag 'multi-fact and split dev'"


def test_the_selection_reads_the_same_whatever_the_order_or_repeats_of_its_values() -> None:
    # Before, a set of tags from Python was described in its hash order, which changes from
    # one process to the next (PYTHONHASHSEED): the same call wrote different JSON.
    tags = {"multi-fact", "no-answer", "exact-identifier"}
    assert evaluate_files(example=True, tags=tags).selection == (
        "tag exact-identifier or multi-fact or no-answer"
    )
    assert QuestionSelection(tags=("b", "a", "b"), ids=("q*", "p*")).describe() == (
        "tag a or b and id p* or q*"
    )
    one = _run("evaluate", "--example", "--tag", "no-answer", "--tag", "multi-fact",
               "--tag", "no-answer", "--format", "json")
    other = _run("evaluate", "--example", "--tag", "multi-fact", "--tag", "no-answer",
                 "--format", "json")
    assert one == other
