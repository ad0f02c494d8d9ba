"""A command that does something with runs, given none (no --run file, no run in DATASET):
exit 2 saying so, not exit 0 with nothing printed or written."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
DATA = [str(EXAMPLE / "evalset.json"), "--snapshot", str(EXAMPLE / "snapshot.json")]


@pytest.mark.parametrize(
    ("args", "purpose"),
    [
        # evaluate and report: before, exit 0 with an empty table or page (a CI step whose
        # `--run runs/*.jsonl` matched nothing passed)
        (["evaluate", *DATA, "--format", "json", "-o", "report.json"], "evaluate"),
        (["report", *DATA, "-o", "page.html"], "report"),
        (["diagnose", *DATA], "diagnose"),
        (["judge", *DATA, "--judge", "lexical", "-o", "out"], "judge"),
        (["review", "export", *DATA, "-o", "sheet.csv"], "review"),
    ],
)
def test_a_command_given_no_run_says_so(
    args: list[str], purpose: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: diagnose printed nothing, judge wrote nothing and review export an empty
    # sheet, each with exit 0.
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "Error: 1 problem found in the input:\n- <command line>: --run: expected at least one "
        f"run to {purpose} (a --run file, or runs in DATASET); found none\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["evaluate", "diagnose", "report"])
def test_a_command_refused_for_no_run_records_no_look_at_the_holdout(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: diagnose --include-holdout recorded a look in the ledger, then refused.
    monkeypatch.chdir(tmp_path)
    args = [command, *DATA, "--include-holdout", "--ledger", "ledger.jsonl", "-o", "out"]
    result = CliRunner().invoke(cli, args)
    assert (result.exit_code, list(tmp_path.iterdir())) == (2, [])
