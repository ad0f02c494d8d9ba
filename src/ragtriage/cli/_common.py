"""Shared CLI plumbing: turning library errors into `Error: ...` and exit codes."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

import click

from ..errors import RagtriageError

P = ParamSpec("P")
R = TypeVar("R")

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_INVALID = 2


def handle_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Print a user's mistake as `Error: ...` on stderr and exit 2, without a traceback."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except RagtriageError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(EXIT_INVALID)

    return wrapper


def write_output(text: str, output: Path | None) -> None:
    """Write a rendered report to a file, or to stdout."""
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")


class KType(click.ParamType):  # type: ignore[type-arg]
    """The cut-off k: a positive integer, with the same message as file-level checks."""

    name = "k"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> int:
        from ..validation import parse_k

        if isinstance(value, int) and not isinstance(value, bool):
            raw: str | int = value
        else:
            raw = str(value)
        try:
            return parse_k(raw)
        except RagtriageError as exc:
            self.fail(str(exc).splitlines()[-1].removeprefix("- "), param, ctx)


format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "markdown"]),
    default="table",
    show_default=True,
)
"""`--format table|json|markdown`: the command receives `fmt: str`."""

output_option = click.option(
    "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout."
)
"""`--output FILE`: the command receives `output: Path | None`."""
