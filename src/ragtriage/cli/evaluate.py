"""`ragtriage evaluate`: the four layers per question and in aggregate."""

from __future__ import annotations

from pathlib import Path

import click

from ..render import dumps, evaluation_json, render_markdown, render_table
from ._common import format_option, handle_errors, output_option, write_output
from ._dataset import (
    K_HELP_CONTEXT,
    UNREVIEWED_HELP,
    DatasetOptions,
    dataset_options,
    example_option,
    load_and_evaluate,
)
from .report import html_option, write_html


@click.command("evaluate")
@dataset_options(
    dataset="argument",
    k_help=K_HELP_CONTEXT,
    metric_help="Measure to report (e.g. evidence_recall); repeatable. Default: the standard set.",
    unreviewed_help=UNREVIEWED_HELP,
)
@format_option
@output_option
@html_option
@example_option("Evaluate the bundled example instead of DATASET.")
@click.option(
    "--engine",
    type=click.Choice(["reference", "columnar"]),
    default="reference",
    show_default=True,
    help="`columnar`: native sets scored as arrays (large inputs; NATIVE_MEASURES only).",
)
@handle_errors
def evaluate_command(
    data: DatasetOptions, fmt: str, output: Path | None, html: Path | None, engine: str
) -> None:
    """Score DATASET (an evaluation set or an article-format file) and its runs."""
    if engine == "columnar":
        from ._columnar import columnar_report

        write_output(columnar_report(data, fmt, html), output)
        return
    result = load_and_evaluate(data, "evaluate", data.runs, metrics=data.metric_names)
    if fmt == "json":
        text = dumps(evaluation_json(result))
    elif fmt == "markdown":
        text = render_markdown(result)
    else:
        text = render_table(result)
    write_output(text, output)
    if html is not None:
        write_html(result, html)
