"""`evaluate --calibration FILE`: the record marks the judge's measures; a bad file is exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ragtriage.cli.calibrate import calibrate_command
from ragtriage.cli.main import cli
from ragtriage.judges import LexicalJudge, judge_dataset, write_model
from ragtriage.loading import load_dataset


def _judge_files(article_fixture: Path, folder: Path) -> list[Path]:
    judged = judge_dataset(load_dataset(article_fixture), LexicalJudge())
    return [write_model(r.labels, folder / f"judge-{r.name}.json") for r in judged.runs]


def _claim_support_row(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("| claim_support |"))


def test_evaluate_with_and_without_a_calibration_record(
    article_fixture: Path, tmp_path: Path
) -> None:
    files = _judge_files(article_fixture, tmp_path)
    record = tmp_path / "calibration.json"
    made = CliRunner().invoke(
        calibrate_command,
        [
            *(a for f in files for a in ("--judge-labels", str(f))),
            str(article_fixture),
            "--record",
            str(record),
        ],
    )
    assert made.exit_code == 0, made.output
    base = [
        "evaluate",
        str(article_fixture),
        *(a for f in files for a in ("--labels", str(f))),
        "--label-policy",
        "judge",
        "--allow-unreviewed",
        "--format",
        "markdown",
    ]
    plain = CliRunner().invoke(cli, base)
    assert plain.exit_code == 0, plain.output
    assert _claim_support_row(plain.output) == (
        "| claim_support | micro, higher is better | 0.75 (3/4) · judge-labelled, uncalibrated "
        "| 1.00 (4/4) · 1 n/a · judge-labelled, uncalibrated |"
    )
    calibrated = CliRunner().invoke(cli, [*base, "--calibration", str(record)])
    assert calibrated.exit_code == 0, calibrated.output
    assert _claim_support_row(calibrated.output) == (
        "| claim_support | micro, higher is better "
        "| 0.75 (3/4) · judge-labelled, calibrated (kappa 1.00 on 8 items) "
        "| 1.00 (4/4) · 1 n/a · judge-labelled, calibrated (kappa 1.00 on 8 items) |"
    )


def test_a_calibration_file_that_is_not_a_record(article_fixture: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[]", encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["evaluate", str(article_fixture), "--calibration", str(bad)]
    )
    assert result.exit_code == 2
    assert result.output == (
        "Error: 1 problem found in the input:\n"
        f"- {bad}: (record): expected an object; found []\n"
    )


def test_calibrate_checks_the_label_files_against_the_dataset(
    article_fixture: Path, tmp_path: Path
) -> None:
    """With DATASET, a label file naming a question or claim DATASET's runs lack is refused,
    as `evaluate --labels` refuses it, not counted as an item only one side labelled."""
    files = _judge_files(article_fixture, tmp_path)
    data = json.loads(files[0].read_text(encoding="utf-8"))
    first = data["claim_labels"][0]
    data["claim_labels"] += [
        {**first, "question_id": "no-such-question"},
        {**first, "claim_id": "c99"},
    ]
    files[0].write_text(json.dumps(data), encoding="utf-8")
    args = [*(a for f in files for a in ("--judge-labels", str(f)))]
    result = CliRunner().invoke(calibrate_command, [*args, str(article_fixture)])
    assert result.exit_code == 2
    assert result.output == (
        "Error: 2 problems found in the input:\n"
        f"- {files[0]}: question 'no-such-question': claim_labels.question_id: expected a "
        "question answered by run 'synthetic-baseline'; found no such result\n"
        f"- {files[0]}: question 'exact-code': claim_labels.claim_id: expected a "
        "claim of the answer (c1); found 'c99'\n"
    )
