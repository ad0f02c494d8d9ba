"""Holdout options of every dataset-reading command (`--include-holdout` ...): a `HoldoutPolicy`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from ..holdout import DEFAULT_WARN_AFTER, HoldoutPolicy
from ..validation import HOLDOUT_WARN_AFTER_RANGE
from ._bounds import bounded
from ._common import R, packed

_OPTIONS = (
    click.option(
        "--who",
        default=None,
        metavar="NAME",
        help="Name recorded in the holdout ledger (default: $USER).",
    ),
    click.option(
        "--holdout-warn-after",
        "warn_after",
        type=bounded(HOLDOUT_WARN_AFTER_RANGE),
        default=DEFAULT_WARN_AFTER,
        metavar="N",
        help="Warn when the holdout has been looked at more than N times.",
    ),
    click.option(
        "--ledger",
        type=click.Path(path_type=Path),
        default=None,
        help="Holdout ledger file (default: <evalset>.holdout-ledger.jsonl beside the set; "
        "the bundled example's in the temporary directory).",
    ),
)


def holdout_options(
    uses: str = "Score holdout questions too",
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Add the holdout options (`--include-holdout` says what the command `uses` it for);
    the command receives them as `holdout: HoldoutPolicy`."""
    include = click.option("--include-holdout", "include", is_flag=True,
                           help=f"{uses}; every such run is recorded in the holdout ledger.")
    return packed(HoldoutPolicy, "holdout", (include, *_OPTIONS))
