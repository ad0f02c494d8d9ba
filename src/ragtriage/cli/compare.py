"""`ragtriage compare`: runs on one evaluation set, question by question, with paired statistics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..api import compare_request
from ..compare import comparison_json, render_comparison_markdown, render_comparison_table
from ..fileio import outputs_together
from ..render import dumps
from ..request import Request
from ..validation import (
    PERMUTATIONS_DEFAULT,
    PERMUTATIONS_RANGE,
    RESAMPLES_DEFAULT,
    RESAMPLES_RANGE,
    SEED_RANGE,
)
from ._bounds import bounded
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

baseline_option = click.option(
    "--baseline",
    default=None,
    metavar="RUN",
    help="The run the others are measured against: a loaded run's name (or its --run file).",
)
"""`--baseline RUN`, shared by compare and gate."""

candidate_help = "A run measured against the baseline: a loaded run's name (or its --run file)"
"""Start of the --candidate help, shared by compare and gate."""


@click.command(
    "compare",
    cls=Command,
    epilog=examples(
        "ragtriage compare --example",
        "ragtriage compare evalset.json --snapshot snapshot.json --run bm25.jsonl "
        "--run dense.jsonl --format markdown",
        "ragtriage compare article.json --baseline baseline --candidate improved --format json",
    ),
)
@dataset_options()
@baseline_option
@click.option(
    "--candidate",
    "candidates",
    multiple=True,
    metavar="RUN",
    help=f"{candidate_help}; repeatable. Default: every other loaded run.",
)
@click.option("--seed", type=bounded(SEED_RANGE), default=0, help="Seed of every resampling.")
@click.option(
    "--resamples",
    type=bounded(RESAMPLES_RANGE),
    default=RESAMPLES_DEFAULT,
    help="Bootstrap resamples.",
)
@click.option(
    "--permutations",
    type=bounded(PERMUTATIONS_RANGE),
    default=PERMUTATIONS_DEFAULT,
    help="Monte Carlo resamples of the permutation test "
    "(exact enumeration when few questions differ).",
)
@click.option(
    "--allow-different-snapshot", is_flag=True, help="Compare runs recorded on different snapshots."
)
@click.option(
    "--no-grouping",
    is_flag=True,
    help="Do not group runs that differ only in their seed as repeats.",
)
@report_options(html=True, all_measures=True)
@handle_errors
def compare_command(
    request: Request,
    fmt: str,
    output: Path | None,
    html: Path | None,
    all_measures: bool = False,
    **options: Any,
) -> None:
    """Compare the runs of DATASET (embedded, --run files, or the example's), question by question.

    The baseline is --baseline or the first run loaded; every other run (or each --candidate)
    is compared with it. Runs that differ only in their recorded seed are grouped as repeats
    of one configuration.
    """
    found = held(compare_request(request, notify=print_notice, **options))
    result = found.comparison
    if fmt == "json":
        text = dumps(comparison_json(result))
    elif fmt == "markdown":
        text = render_comparison_markdown(result)
    else:
        text = render_comparison_table(result, terminal_width(), all_measures=all_measures)
    with outputs_together():  # both or neither; stdout, which cannot be taken back, last
        if html is not None:
            write_html(found.evaluation, html, comparison=result)
        write_output(text, output)
