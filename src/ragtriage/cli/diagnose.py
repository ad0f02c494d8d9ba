"""`ragtriage diagnose`: the failing pipeline stage of every question, with the proving IDs."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import diagnose_request
from ..render import (
    diagnosis_report_json,
    dumps,
    render_diagnosis_markdown,
    render_diagnosis_table,
)
from ..request import Request
from ._common import (
    examples,
    handle_errors,
    held,
    report_options,
    terminal_width,
    write_output,
)
from ._dataset import dataset_options, print_notice
from ._parsing import Command


@click.command(
    "diagnose",
    cls=Command,
    epilog=examples(
        "ragtriage diagnose --example",
        "ragtriage diagnose --example --stage retrieval_miss --format markdown",
        "ragtriage diagnose evalset.json --snapshot snapshot.json --run bm25.jsonl -o stages.txt",
    ),
)
@dataset_options(metrics=False)
@report_options()
@handle_errors
def diagnose_command(request: Request, fmt: str, output: Path | None) -> None:
    """Say where each question of DATASET's runs failed: primary stage, secondary ones, IDs."""
    evaluation, found = held(diagnose_request(request, notify=print_notice))
    if fmt == "json":
        text = dumps(diagnosis_report_json(evaluation))
    elif fmt == "markdown":
        text = render_diagnosis_markdown(found, evaluation.selection)
    else:
        text = render_diagnosis_table(found, terminal_width(), evaluation.selection)
    write_output(text, output)
