"""Holdout options of every dataset-reading command (`--include-holdout` ...): a `HoldoutPolicy`."""

from __future__ import annotations

from pathlib import Path

import click

from ..holdout import DEFAULT_WARN_AFTER, HoldoutPolicy
from ..validation import HOLDOUT_WARN_AFTER_RANGE
from ._bounds import bounded
from ._common import packed

_OPTIONS = (
    click.option(
        "--include-holdout",
        "include",
        is_flag=True,
        help="Score holdout questions too; every such run is recorded in the holdout ledger.",
    ),
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
        help="Holdout ledger file (default: <evalset>.holdout-ledger.jsonl beside the set).",
    ),
)


holdout_options = packed(HoldoutPolicy, "holdout", _OPTIONS)
"""Add the holdout options; the command receives them as `holdout: HoldoutPolicy`."""
