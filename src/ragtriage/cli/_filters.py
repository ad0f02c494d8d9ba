"""Shared question-filter options (--tag, --split, --stage, --id) and --versions for commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from ..filters import SPLITS, QuestionSelection
from ._common import packed


def _check_stages(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    # Checked at parse time, after every module that registers stages has been imported, by
    # the library's rule (the Python API's keywords are checked by the same).
    from ..diagnosis import stage_names

    return _library_rule(lambda: stage_names(value))


def _check_splits(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    return _library_rule(lambda: QuestionSelection(splits=value).splits)


def _library_rule(check: Callable[[], tuple[str, ...]]) -> tuple[str, ...]:
    """An option's values as the library's rule takes them, its refusal in the library's
    words (`expected ...; found` every value refused), as the Python API gives it."""
    from ..errors import InputError

    try:
        return check()
    except InputError as exc:
        found = ", ".join(problem.found for problem in exc.problems)  # every unknown one
        raise click.BadParameter(f"expected {exc.problems[0].expected}; found {found}") from None


_OPTIONS = (
    click.option("--tag", "tags", multiple=True, metavar="TAG",
                 help="Only questions with this tag; repeatable (any of them)."),
    click.option("--split", "splits", multiple=True, metavar="SPLIT", callback=_check_splits,
                 help=f"Only questions in this split ({', '.join(SPLITS)}); repeatable (any of "
                 "them)."),
    click.option("--stage", "stages", multiple=True, metavar="STAGE", callback=_check_stages,
                 help="Only questions diagnosed with this stage (primary or secondary, in any "
                 "run); repeatable (any of them)."),
    click.option("--id", "ids", multiple=True, metavar="PATTERN",
                 help="Only questions whose ID matches this glob (e.g. 'exact-*'); repeatable."),
)


question_filters = packed(QuestionSelection, "selection", _OPTIONS)
"""Add the four filter options; the command receives them as `selection: QuestionSelection`.
Different options must all hold; repeated values of one option are alternatives."""


versions_option = click.option(
    "--versions", "versions", type=click.Path(path_type=Path), default=None,
    help="JSON or TOML file giving document versions, status and supersession "
    "({doc_id: {version, status, supersedes}}), for corpora without them (the article format).",
)
"""`--versions FILE`: the command receives `versions: Path | None`."""
