"""Holdout options of every dataset-reading command (`--include-holdout` ...): a `HoldoutPolicy`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..holdout import DEFAULT_WARN_AFTER, HoldoutPolicy
from . import _bounds as bounds
from ._common import with_options

R = TypeVar("R")


_OPTIONS = (
    click.option(
        "--include-holdout",
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
        type=bounds.HOLDOUT_WARN_AFTER,
        default=DEFAULT_WARN_AFTER,
        show_default=True,
        metavar="N",
        help="Warn when the holdout has been looked at more than N times.",
    ),
    click.option(
        "--ledger",
        "holdout_ledger",
        type=click.Path(path_type=Path),
        default=None,
        help="Holdout ledger file (default: <evalset>.holdout-ledger.jsonl beside the set).",
    ),
)


def holdout_options(func: Callable[..., R]) -> Callable[..., R]:
    """Add the holdout options; the command receives them as `holdout: HoldoutPolicy`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> R:
        options = HoldoutPolicy(
            include=bool(kwargs.pop("include_holdout")),
            who=kwargs.pop("who"),
            warn_after=int(kwargs.pop("holdout_warn_after")),
            ledger=kwargs.pop("holdout_ledger"),
        )
        return func(*args, holdout=options, **kwargs)

    return with_options(wrapper, _OPTIONS)
