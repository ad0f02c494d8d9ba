"""`ragtriage demo`: evaluate the bundled example (the same as `evaluate --example`)."""

from __future__ import annotations

from pathlib import Path

import click

from .evaluate import evaluate_command


@click.command("demo")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "markdown"]),
    default="table",
    show_default=True,
)
@click.option(
    "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout."
)
@click.pass_context
def demo_command(ctx: click.Context, fmt: str, output: Path | None) -> None:
    """Evaluate the bundled example: a baseline and an improved run of a fictional service."""
    # One code path: the demo is `evaluate --example`, so both always print the same report.
    ctx.invoke(evaluate_command, example=True, fmt=fmt, output=output)
