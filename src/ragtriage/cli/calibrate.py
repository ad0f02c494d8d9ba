"""`ragtriage calibrate`: compare a judge with human labels before trusting its labels."""

from __future__ import annotations

from pathlib import Path

import click

from ..calibration import calibrate_files, calibration_json, render_calibration
from ..loading import SourceFile, load_dataset
from ..render import dumps
from ..schemas import Run
from ._common import handle_errors, write_output


@click.command("calibrate")
@click.option(
    "--judge-labels",
    "judge_files",
    multiple=True,
    required=True,
    type=click.Path(path_type=Path),
    help="Label file of one judge (from `ragtriage judge`); repeatable.",
)
@click.option(
    "--human-labels",
    "human_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Label file of human reviewers (from `ragtriage review import`); repeatable.",
)
@click.option(
    "--human-from",
    "dataset",
    type=click.Path(path_type=Path),
    help="Also use the human labels embedded in this dataset's runs (e.g. an article file).",
)
@click.option("--snapshot", type=click.Path(path_type=Path), help="Snapshot for --human-from.")
@click.option(
    "--run",
    "runs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Run file for --human-from.",
)
@click.option(
    "--confidence",
    type=click.FloatRange(min=0.5, max=0.999),
    default=0.95,
    show_default=True,
    help="Coverage of the confidence intervals.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@click.option(
    "--output",
    type=click.Path(path_type=Path),
    help="Also write the calibration record (JSON) here, for `evaluate --calibration`.",
)
@handle_errors
def calibrate_command(
    judge_files: tuple[Path, ...],
    human_files: tuple[Path, ...],
    dataset: Path | None,
    snapshot: Path | None,
    runs: tuple[Path, ...],
    confidence: float,
    fmt: str,
    output: Path | None,
) -> None:
    """Compare a judge's labels with human labels on the same items.

    Reports agreement, Cohen's kappa, the confusion matrix, precision and recall of
    "supported" (and "covered"), the share of "cannot judge", and claim_support per run:
    from the judge alone (judge-labelled, uncalibrated), from humans alone, and the
    prediction-powered estimate (judge labels on every claim, corrected with the
    human-labelled ones) with a confidence interval.

    With --output, the record (judge spec, counts, agreement, kappa, confusion matrices,
    estimates, input hashes) is written as JSON for `evaluate --calibration`, which then
    marks the judge's measures as calibrated; the report still prints.
    """
    embedded: tuple[Run, ...] = ()
    sources: tuple[SourceFile, ...] = ()
    if dataset is not None:
        loaded = load_dataset(dataset, snapshot=snapshot, runs=runs)
        embedded, sources = loaded.runs, loaded.sources
    result = calibrate_files(
        list(judge_files),
        list(human_files),
        human_runs=embedded,
        human_source=str(dataset),
        human_sources=sources,
        confidence=confidence,
    )
    record = dumps(calibration_json(result))
    if output is not None:
        write_output(record, output)
    write_output(record if fmt == "json" else render_calibration(result), None)
