"""Shared question-filter options (--tag, --split, --stage, --id) and --versions for commands."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..filters import SPLITS, QuestionSelection
from ._common import with_options

R = TypeVar("R")


def _check_stages(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    # Checked at parse time, after every module that registers stages has been imported, by
    # the library's rule (the Python API's keywords are checked by the same).
    from ..diagnosis import stage_names
    from ..errors import InputError

    try:
        return stage_names(value)
    except InputError as exc:
        found = ", ".join(problem.found for problem in exc.problems)  # every unknown one
        raise click.BadParameter(f"expected {exc.problems[0].expected}; found {found}") from None


_OPTIONS = (
    click.option("--tag", "filter_tags", multiple=True, metavar="TAG",
                 help="Only questions with this tag; repeatable (any of them)."),
    click.option("--split", "filter_splits", multiple=True, type=click.Choice(SPLITS),
                 help="Only questions in this split; repeatable (any of them)."),
    click.option("--stage", "filter_stages", multiple=True, metavar="STAGE", callback=_check_stages,
                 help="Only questions diagnosed with this stage (primary or secondary, in any "
                 "run); repeatable (any of them)."),
    click.option("--id", "filter_ids", multiple=True, metavar="PATTERN",
                 help="Only questions whose ID matches this glob (e.g. 'exact-*'); repeatable."),
)


def question_filters(func: Callable[..., R]) -> Callable[..., R]:
    """Add the four filter options; the command receives them as `selection: QuestionSelection`.

    Apply it below `@click.command(...)`. Different options must all hold; repeated values of
    one option are alternatives.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> R:
        selection = QuestionSelection(
            tags=tuple(kwargs.pop("filter_tags")),
            splits=tuple(kwargs.pop("filter_splits")),
            stages=tuple(kwargs.pop("filter_stages")),
            ids=tuple(kwargs.pop("filter_ids")),
        )
        return func(*args, selection=selection, **kwargs)

    return with_options(wrapper, _OPTIONS)


versions_option = click.option(
    "--versions", "versions", type=click.Path(path_type=Path), default=None,
    help="JSON or TOML file giving document versions, status and supersession "
    "({doc_id: {version, status, supersedes}}), for corpora without them (the article format).",
)
"""`--versions FILE`: the command receives `versions: Path | None`."""
