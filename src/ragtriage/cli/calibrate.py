"""`ragtriage calibrate`: compare a judge with human labels before trusting its labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..api import calibrate_labels
from ..calibration import calibration_json, render_calibration
from ..fileio import outputs_together
from ..holdout import HoldoutPolicy
from ..render import dumps
from ..validation import LEVEL_RANGE
from ._bounds import bounded
from ._common import (
    dataset_argument,
    examples,
    handle_errors,
    output_path_option,
    report_options,
    run_option,
    self_labelling_option,
    snapshot_option,
    terminal_width,
    write_output,
)
from ._dataset import print_notice
from ._holdout import holdout_options
from ._parsing import Command


@click.command(
    "calibrate",
    cls=Command,
    epilog=examples(
        "ragtriage calibrate --judge-labels judge/a.labels.json --human-labels human/a.labels.json",
        "ragtriage calibrate article-fixture.json --judge-labels labels/a.labels.json "
        "--record judge.calibration.json",
        "ragtriage calibrate --judge-labels j.json --human-labels h.json --format json -o cal.json",
    ),
)
@dataset_argument
@click.option(
    "--judge-labels",
    multiple=True,
    required=True,
    type=click.Path(path_type=Path),
    help="Label file of one judge (from `ragtriage judge`); repeatable.",
)
@click.option(
    "--human-labels",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Label file of human reviewers (from `ragtriage review import`); repeatable.",
)
@snapshot_option
@run_option
@click.option(
    "--confidence",
    type=bounded(LEVEL_RANGE),
    default=0.95,
    help="Coverage of the confidence intervals.",
)
@self_labelling_option
@report_options(("table", "json"))
@output_path_option(
    "--record",
    help="Also write the calibration record (JSON) here, for `evaluate --calibration`.",
)
@holdout_options("Compare on the holdout questions' labelled items too")
@handle_errors
def calibrate_command(
    fmt: str, output: Path | None, record: Path | None, holdout: HoldoutPolicy, **options: Any
) -> None:
    """Compare a judge's labels with human labels on the same items.

    DATASET (optional) adds the human labels embedded in its runs (e.g. an article file);
    the items of its holdout questions are left out unless --include-holdout.

    Reports agreement, Cohen's kappa, the confusion matrix, precision and recall of
    "supported" (and "covered"), the share of "cannot judge", and claim_support per run:
    from the judge alone (judge-labelled, uncalibrated), from humans alone, and the
    prediction-powered estimate (judge labels on every claim, corrected with the
    human-labelled ones) with a confidence interval.

    With --record, the record (judge spec, counts, agreement, kappa, confusion matrices,
    estimates, input hashes) is written as JSON for `evaluate --calibration`, which then
    marks the judge's measures as calibrated; the report still prints.
    """
    result = calibrate_labels(
        **options, include_holdout=holdout.include, who=holdout.who,
        holdout_warn_after=holdout.warn_after, ledger=holdout.ledger, notify=print_notice,
    )
    text = dumps(calibration_json(result))
    with outputs_together():  # both or neither; stdout, which cannot be taken back, last
        if record is not None:
            write_output(text, record)
        report = text if fmt == "json" else render_calibration(result, terminal_width())
        write_output(report, output)
