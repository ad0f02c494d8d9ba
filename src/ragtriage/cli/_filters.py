"""Shared question-filter options (--tag, --split, --stage, --id) and --versions for commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from ..filters import SPLITS, QuestionSelection
from ._common import packed


def _checked(
    rule: Callable[[tuple[str, ...]], tuple[str, ...]],
) -> Callable[[click.Context, click.Parameter, tuple[str, ...]], tuple[str, ...]]:
    """An option's values checked at parse time by the library's `rule` (the Python API's
    keywords are checked by the same), every bad one named."""

    def check(
        ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
    ) -> tuple[str, ...]:
        from ..errors import InputError

        try:
            return rule(value)
        except InputError as exc:
            found = ", ".join(problem.found for problem in exc.problems)  # every bad one
            expected = exc.problems[0].expected
            raise click.BadParameter(f"expected {expected}; found {found}") from None

    return check


def _stages(value: tuple[str, ...]) -> tuple[str, ...]:
    # Imported at parse time, after every module that registers stages has been imported.
    from ..diagnosis import stage_names

    return stage_names(value)


_OPTIONS = (
    click.option("--tag", "tags", multiple=True, metavar="TAG",
                 callback=_checked(lambda tags: QuestionSelection(tags=tags).tags),
                 help="Only questions with this tag; repeatable (any of them)."),
    click.option("--split", "splits", multiple=True, metavar="SPLIT",
                 callback=_checked(lambda splits: QuestionSelection(splits=splits).splits),
                 help=f"Only questions in this split ({', '.join(SPLITS)}); repeatable (any of "
                 "them)."),
    click.option("--stage", "stages", multiple=True, metavar="STAGE", callback=_checked(_stages),
                 help="Only questions diagnosed with this stage (primary or secondary, in any "
                 "run); repeatable (any of them)."),
    click.option("--id", "ids", multiple=True, metavar="PATTERN",
                 help="Only the question with this ID, or whose ID matches this glob (e.g. "
                 "'exact-*'); repeatable."),
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
