"""The `ragtriage` command: a thin layer that wires arguments to the library."""

from __future__ import annotations

import click

from .._version import __version__
from .evaluate import evaluate_command

COMMANDS: list[click.Command] = [evaluate_command]
"""Every subcommand; each lives in its own module under `ragtriage.cli`."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ragtriage")
def cli() -> None:
    """Show where a RAG system fails, question by question."""


for _command in COMMANDS:
    cli.add_command(_command)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="ragtriage")
