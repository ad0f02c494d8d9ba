"""`ragtriage report`: one self-contained HTML file for people to look at in review."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..evaluation import Evaluation
from ..request import Request
from ._common import (
    examples,
    handle_errors,
    output_option,
    say,
    write_output,
)
from ._dataset import dataset_options, print_notice
from ._parsing import Command

if TYPE_CHECKING:
    from ..compare import Comparison

def write_html(evaluation: Evaluation, path: Path, comparison: Comparison | None = None) -> None:
    """Write the HTML report of an evaluation (see `ragtriage.api.report_page`).

    Without `comparison`, two or more runs are compared first run against the others.
    """
    from ..api import report_page

    write_output(report_page(evaluation, comparison=comparison), path)


@click.command(
    "report",
    cls=Command,
    epilog=examples(
        "ragtriage report --example -o report.html",
        "ragtriage report article-fixture.json -k 2 -o report.html",
        "ragtriage report evalset.json --snapshot snapshot.json --run a.jsonl --run b.jsonl "
        "-o report.html",
    ),
)
@dataset_options()
@output_option("the HTML report", required=True)
@click.option("--title", default="ragtriage report", help="The page title.")
@handle_errors
def report_command(request: Request, output: Path, title: str) -> None:
    """Write DATASET and its runs as one HTML file.

    The file needs no network: charts, script, styles and data are inside it. The first
    run is the base that later runs are compared with.
    """
    from ..api import report_request

    write_output(report_request(request, title=title, notify=print_notice), output)
    say(f"wrote {output}", err=True)
