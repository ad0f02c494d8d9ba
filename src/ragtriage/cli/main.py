"""The `ragtriage` command: a thin layer that wires arguments to the library."""

from __future__ import annotations

import click

from .._version import __version__
from ._common import examples
from .calibrate import calibrate_command
from .compare import compare_command
from .demo import demo_command
from .diagnose import diagnose_command
from .evaluate import evaluate_command
from .export import export_command
from .gate import gate_command
from .import_ import import_command
from .judge import judge_command
from .report import report_command
from .review import review_command
from .run import run_command
from .schema import schema_command
from .trec import trec_eval_command

COMMANDS: list[click.Command] = [
    evaluate_command, demo_command, schema_command, diagnose_command, report_command,
    run_command, import_command, export_command,
    compare_command, gate_command,
    trec_eval_command,
    review_command, judge_command, calibrate_command,
]
"""Every subcommand; each lives in its own module under `ragtriage.cli`."""


@click.group(
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=examples(
        "ragtriage demo",
        "ragtriage evaluate evalset.json --snapshot snapshot.json --run a.jsonl --run b.jsonl",
        "ragtriage compare --example --format markdown",
    ),
)
@click.version_option(__version__, prog_name="ragtriage")
def cli() -> None:
    """Show where a RAG system fails, question by question."""


for _command in COMMANDS:
    cli.add_command(_command)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="ragtriage")
