"""`ragtriage diagnose`: the failing pipeline stage of every question, with the proving IDs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .._version import __version__
from ..diagnosis import (
    diagnose,
    render_diagnosis_markdown,
    render_diagnosis_table,
    run_diagnosis_json,
)
from ..render import dumps
from ._common import format_option, handle_errors, output_option, write_output
from ._dataset import (
    K_HELP_CUTOFF,
    DatasetOptions,
    dataset_options,
    example_option,
    load_and_evaluate,
)


@click.command("diagnose")
@dataset_options(
    dataset="argument",
    k_help=K_HELP_CUTOFF,
    unreviewed_help="Accept unreviewed answers (their unlabelled claims are diagnosed "
    "judge_uncertain).",
)
@format_option
@output_option
@example_option("Diagnose the bundled example instead of DATASET.")
@handle_errors
def diagnose_command(data: DatasetOptions, fmt: str, output: Path | None) -> None:
    """Say where each question of DATASET's runs failed: primary stage, secondary ones, IDs."""
    selection = data.selection
    evaluation = load_and_evaluate(data, "diagnose", data.runs, metrics=[])
    found = diagnose(evaluation)
    if fmt == "json":
        report: dict[str, Any] = {
            "schema_version": 1,
            "tool": {"name": "ragtriage", "version": __version__},
            "inputs": [
                {"path": s.path, "kind": s.kind, "sha256": s.sha256} for s in evaluation.sources
            ],
            "selection": selection.describe(),
            "runs": [run_diagnosis_json(run) for run in found],
        }
        text = dumps(report)
    elif fmt == "markdown":
        text = render_diagnosis_markdown(found, selection.describe())
    else:
        text = render_diagnosis_table(found)
    write_output(text, output)
