"""`ragtriage schema KIND`: print the JSON Schema of one file kind."""

from __future__ import annotations

from pathlib import Path

import click

from ..schemas._export import SCHEMA_MODELS, schema_text
from ._common import handle_errors, write_output


@click.command("schema")
@click.argument("kind", type=click.Choice(list(SCHEMA_MODELS)))
@click.option(
    "--output", type=click.Path(path_type=Path), help="Write the schema here instead of stdout."
)
@handle_errors
def schema_command(kind: str, output: Path | None) -> None:
    """Print the JSON Schema of a file KIND (generated from the models)."""
    write_output(schema_text(kind), output)
