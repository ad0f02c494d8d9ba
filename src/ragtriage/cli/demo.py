"""`ragtriage demo`: evaluate the bundled example (the same as `evaluate --example`)."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import examples, format_option, output_option
from .evaluate import evaluate_command


@click.command(
    "demo",
    epilog=examples("ragtriage demo", "ragtriage demo --format markdown -o demo.md"),
)
@format_option()
@output_option("the report")
@click.pass_context
def demo_command(ctx: click.Context, fmt: str, output: Path | None) -> None:
    """Evaluate the bundled example: a baseline and an improved run of a fictional service."""
    # One code path: the demo is `evaluate --example`, so both always print the same report.
    ctx.invoke(evaluate_command, example=True, fmt=fmt, output=output)
