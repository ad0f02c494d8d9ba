"""The dataset options every dataset-reading command shares, turned into one library `Request`.

`dataset_options(...)` adds the positional DATASET and the options that say what to load and
how to score it (--snapshot, --run, --labels, --calibration, -k, --metric, --label-policy, ...,
--example, --executor, --versions, the question filters and the holdout options); the command
receives them as one `request: Request` and hands it to the library.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, get_args

import click

from ..holdout import Notice
from ..request import Request
from ..schemas import LabelPolicy
from ..validation import LevelChoice
from ._common import (
    dataset_argument,
    example_option,
    executor_options,
    k_option,
    labels_option,
    packed,
    run_option,
    say,
    self_labelling_option,
    snapshot_option,
    with_options,
)
from ._filters import question_filters, versions_option
from ._holdout import holdout_options

R = TypeVar("R")

METRIC_HELP = (
    "Measure to report (e.g. evidence_recall, ndcg@10); repeatable. Default: the standard set."
)
"""--metric help (one text everywhere)."""
UNREVIEWED_HELP = (
    "Accept answers without labels instead of refusing the input: their claims are scored "
    "not applicable (and diagnosed judge_uncertain)."
)
"""--allow-unreviewed help (one text everywhere)."""
MISSING_HELP = (
    "Accept runs without a result for some questions: those are listed as no result in every "
    "output, never scored; compare pairs only the questions both runs answered."
)
"""--allow-missing help (one text everywhere)."""


def print_notice(notice: Notice) -> None:
    """Where the command line sends a request's notes and warnings: stderr."""
    say(str(notice), err=True)


def dataset_options(*, metrics: bool = True) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Add DATASET and the dataset options; the command receives them as `request: Request`.

    `metrics=False` leaves out --metric (diagnose reports stages, not measures).
    """
    options: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
        dataset_argument,
        snapshot_option,
        run_option,
        labels_option,
        click.option(
            "--calibration",
            "calibrations",
            multiple=True,
            type=click.Path(path_type=Path),
            help="Calibration record from `ragtriage calibrate --record`; marks the matching "
            "judge's measures as calibrated; repeatable.",
        ),
        k_option,
    ]
    if metrics:
        options.append(click.option("--metric", "metrics", multiple=True, help=METRIC_HELP))
    options += [
        click.option(
            "--label-policy",
            type=click.Choice(get_args(LabelPolicy)),
            default="human-first",
            help="Which labels count.",
        ),
        click.option("--allow-unreviewed", is_flag=True, help=UNREVIEWED_HELP),
        click.option("--allow-missing", is_flag=True, help=MISSING_HELP),
        self_labelling_option,
        click.option(
            "--evidence-level",
            type=click.Choice(get_args(LevelChoice)),
            default="auto",
            help="How retrieved IDs are matched to required evidence.",
        ),
        example_option,
        executor_options,
    ]

    def decorator(func: Callable[..., R]) -> Callable[..., R]:
        # Every option the request holds is named as its field (`metrics`: not with
        # metrics=False, so the request's default, none). The filter and holdout wrappers sit
        # outside the request's, so it receives their values already built; the click options
        # are listed in the order the user sees in --help.
        decorated = question_filters(holdout_options()(packed(Request, "request")(func)))
        return with_options(versions_option(decorated), options)

    return decorator
