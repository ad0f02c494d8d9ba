"""Holdout options shared by evaluate, compare, diagnose and gate (`--include-holdout` ...)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from ..holdout import DEFAULT_WARN_AFTER, holdout_ids, look_warning, record_look, without_holdout
from ..loading import Dataset

R = TypeVar("R")


@dataclass(frozen=True)
class HoldoutOptions:
    """What the user asked for about the holdout split."""

    include: bool
    """Score holdout questions (and record the look)."""
    who: str | None
    """Name recorded in the ledger instead of $USER."""
    warn_after: int
    """Warn when the holdout has been looked at more than this many times."""
    ledger: Path | None
    """Ledger file instead of the one beside the evaluation set."""

    def apply(self, dataset: Dataset, command: str) -> Dataset:
        """Drop the holdout (saying so on stderr), or keep it and record the look in the ledger."""
        hidden = holdout_ids(dataset)
        if not hidden:
            return dataset
        if not self.include:
            click.echo(
                f"note: {len(hidden)} holdout question(s) left out; --include-holdout scores "
                "them (and records the look)",
                err=True,
            )
            return without_holdout(dataset)
        look = record_look(
            dataset,
            command=command,
            runs=[run.name for run in dataset.runs],
            who=self.who,
            ledger=self.ledger,
        )
        if look is not None:
            warning = look_warning(look, self.warn_after)
            if warning is not None:
                click.echo(f"warning: {warning}", err=True)
        return dataset


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
        type=click.IntRange(min=0),
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
    """Add the holdout options; the command receives them as `holdout: HoldoutOptions`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> R:
        options = HoldoutOptions(
            include=bool(kwargs.pop("include_holdout")),
            who=kwargs.pop("who"),
            warn_after=int(kwargs.pop("holdout_warn_after")),
            ledger=kwargs.pop("holdout_ledger"),
        )
        return func(*args, holdout=options, **kwargs)

    decorated: Callable[..., R] = wrapper
    for option in reversed(_OPTIONS):
        decorated = option(decorated)
    return decorated
