"""`ragtriage schema KIND`: print the JSON Schema of one file kind."""

from __future__ import annotations

from pathlib import Path

import click

from ..schemas import SCHEMA_MODELS, schema_text
from ._common import examples, handle_errors, output_option, write_output
from ._parsing import Command


@click.command(
    "schema",
    cls=Command,
    epilog=examples("ragtriage schema run", "ragtriage schema evalset -o evalset.schema.json"),
)
@click.argument("kind", type=click.Choice(list(SCHEMA_MODELS)))
@output_option("the schema")
@handle_errors
def schema_command(kind: str, output: Path | None) -> None:
    """Print the JSON Schema of a file KIND (generated from the models)."""
    write_output(schema_text(kind), output)
