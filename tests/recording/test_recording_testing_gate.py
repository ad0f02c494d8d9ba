"""`ragtriage.testing.gate`: the release gate as a test assertion, with the CLI's rule table."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli
from ragtriage.errors import InputError
from ragtriage.example import example_paths
from ragtriage.testing import GateFailed, gate


def test_a_failing_gate_fails_with_the_cli_rule_table(tmp_path: Path) -> None:
    paths = example_paths()
    summary = tmp_path / "gate.md"
    with pytest.raises(GateFailed) as err:
        gate(
            paths.evalset,
            policy=paths.policy,
            runs=paths.runs,
            snapshot=paths.snapshot,
            candidate="improved",
            baseline="baseline",
            markdown=summary,
        )
    assert isinstance(err.value, AssertionError)
    result = err.value.result
    assert (result.run, result.baseline, result.passed) == ("improved", "baseline", False)
    assert [r.name for r in result.rules if r.verdict == "fail"] == [
        "no regression on protected questions"
    ]
    args = [
        "gate", str(paths.evalset), "--snapshot", str(paths.snapshot),
        "--run", str(paths.runs[0]), "--run", str(paths.runs[1]),
        "--candidate", "improved", "--baseline", "baseline", "--policy", str(paths.policy),
    ]
    shown = CliRunner().invoke(cli, args)
    assert shown.exit_code == 1
    assert str(err.value) == "\n" + shown.stdout
    markdown = CliRunner().invoke(cli, [*args, "--format", "markdown"])
    assert summary.read_text(encoding="utf-8") == markdown.stdout


def test_a_passing_gate_returns_its_result(tmp_path: Path) -> None:
    paths = example_paths()
    policy = tmp_path / "policy.toml"
    policy.write_text(
        'name = "lenient"\n\n[[threshold]]\nmetric = "evidence_recall"\nmin = 0.5\n',
        encoding="utf-8",
    )
    result = gate(paths.evalset, policy=policy, runs=paths.runs[:1], snapshot=paths.snapshot)
    assert (result.run, result.passed, result.questions) == ("baseline", True, 15)
    assert [(r.name, r.verdict, r.observed_text) for r in result.rules] == [
        ("evidence_recall >= 0.5", "pass", "0.792 (9.5/12, macro)")
    ]


def test_invalid_input_is_an_error_not_a_failure(tmp_path: Path) -> None:
    paths = example_paths()
    with pytest.raises(InputError) as err:
        gate(paths.evalset, policy=paths.policy, runs=[], snapshot=paths.snapshot)
    assert [p.message() for p in err.value.problems] == [
        "<command line>: --run: expected at least one run to gate (a --run file, or runs in "
        "DATASET); found none"
    ]
