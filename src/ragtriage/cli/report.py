"""`ragtriage report`: one self-contained HTML file for people to look at in review."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..evaluation import Evaluation
from ._common import handle_errors, write_output
from ._dataset import (
    K_HELP_CONTEXT,
    UNREVIEWED_HELP,
    DatasetOptions,
    dataset_options,
    example_option,
    load_and_evaluate,
)

if TYPE_CHECKING:
    from ..compare import Comparison

html_option = click.option(
    "--html",
    "html",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the self-contained HTML report (see `ragtriage report`) to FILE.",
)
"""`--html FILE` for commands whose result can also be written as the HTML report."""


def write_html(
    evaluation: Evaluation,
    path: Path,
    title: str = "ragtriage report",
    comparison: Comparison | None = None,
) -> None:
    """Render the HTML report of an evaluation (diagnosing every run) and write it.

    Without `comparison`, two or more runs are compared first run against the others.
    """
    from ..render.html import render_html

    write_output(render_html(evaluation, title=title, comparison=comparison), path)


@click.command("report")
@click.argument("runs", nargs=-1, type=click.Path(path_type=Path))
@dataset_options(
    dataset="option",
    dataset_help="Evaluation set or article-format file.",
    k_help=K_HELP_CONTEXT,
    metric_help="Measure to report; repeatable. Default: the standard set.",
    unreviewed_help=UNREVIEWED_HELP,
)
@click.option(
    "--html",
    "html",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Write the HTML report to FILE.",
)
@click.option("--title", default="ragtriage report", show_default=True, help="The page title.")
@example_option("Report on the bundled example (its runs come first).")
@handle_errors
def report_command(runs: tuple[Path, ...], data: DatasetOptions, html: Path, title: str) -> None:
    """Write RUN... (with the evaluation set of --dataset) as one HTML file.

    The file needs no network: charts, script, styles and data are inside it. The first
    run is the base that later runs are compared with.
    """
    evaluation = load_and_evaluate(
        data, "report", runs, metrics=data.metric_names, missing="give --dataset FILE or --example"
    )
    write_html(evaluation, html, title)
    click.echo(f"wrote {html}", err=True)
