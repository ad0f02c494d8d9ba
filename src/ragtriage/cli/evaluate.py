"""`ragtriage evaluate`: the four layers per question and in aggregate."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click

from ..api import evaluate_request
from ..fileio import outputs_together
from ..render import evaluation_text
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
from .report import write_html


@click.command(
    "evaluate",
    cls=Command,
    epilog=examples(
        "ragtriage evaluate --example",
        "ragtriage evaluate article-fixture.json -k 2 --format json -o report.json",
        "ragtriage evaluate evalset.json --snapshot snapshot.json --run a.jsonl --run b.jsonl",
    ),
)
@dataset_options()
@report_options(html=True, all_measures=True)
@handle_errors
def evaluate_command(
    request: Request,
    fmt: str,
    output: Path | None,
    html: Path | None,
    all_measures: bool = False,
) -> None:
    """Score DATASET (an evaluation set or an article-format file) and its runs."""
    result = held(evaluate_request(request, notify=print_notice))
    text: str | Iterator[str | memoryview]
    if fmt == "json":
        text = evaluation_text(result)  # written as made: the document is never held whole
    elif fmt == "markdown":
        from ..render import render_markdown  # here: the JSON report needs no rich text

        text = render_markdown(result)
    else:
        from ..render import render_table

        text = render_table(result, terminal_width(), all_measures=all_measures)
    with outputs_together():  # both or neither; stdout, which cannot be taken back, last
        if html is not None:
            write_html(result, html)
        write_output(text, output)
