"""`ragtriage init`: write a small starter dataset to replace with one's own."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from ..api import init_files
from ..starter import dataset_arguments
from ._common import examples, handle_errors, say
from ._parsing import Command


@click.command(
    "init",
    cls=Command,
    epilog=examples(
        "ragtriage init my-eval",
        "ragtriage init my-eval --force",
    ),
)
@click.argument("directory", type=click.Path(path_type=Path), metavar="DIR")
@click.option(
    "--force",
    is_flag=True,
    help="Write into a directory that already holds files (files of the same name are "
    "overwritten, the others kept).",
)
@handle_errors
def init_command(directory: Path, force: bool) -> None:
    """Write a starter dataset into DIR: snapshot, evaluation set, run, labels, gate policy.

    The files are small and commented (README.md lists what each holds and the next
    commands); they evaluate cleanly as written, so each can be replaced with your own data
    one at a time. DIR must be new or empty unless --force is given.
    """
    written = init_files(directory, force=force)
    say(f"wrote {len(written.files)} files to {directory}:")
    for path in written.files:
        replaced = " (overwritten)" if path in written.replaced else ""
        say(f"  {path.name}{replaced}")
    arguments = shlex.join(dataset_arguments(str(directory)))
    say(f"{directory / 'README.md'} says what each file holds; next:")
    say(f"  ragtriage evaluate {arguments}")
    say(f"  ragtriage report {arguments} -o report.html")
