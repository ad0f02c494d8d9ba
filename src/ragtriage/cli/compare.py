"""`ragtriage compare`: runs on one evaluation set, question by question, with paired statistics."""

from __future__ import annotations

from pathlib import Path

import click

from ..compare import compare, comparison_json, render_comparison_markdown, render_comparison_table
from ..render import dumps
from ._common import format_option, handle_errors, output_option, write_output
from ._dataset import DatasetOptions, load_runs, run_dataset_options
from .report import html_option, write_html


@click.command("compare")
@click.argument("runs", nargs=-1, required=True)
@run_dataset_options
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every resampling.")
@click.option(
    "--resamples",
    type=click.IntRange(min=100),
    default=5000,
    show_default=True,
    help="Bootstrap resamples.",
)
@click.option(
    "--permutations",
    type=click.IntRange(min=100),
    default=10000,
    show_default=True,
    help="Monte Carlo resamples of the permutation test "
    "(exact enumeration when few questions differ).",
)
@click.option(
    "--allow-different-questions",
    is_flag=True,
    help="Compare runs whose evaluation set or question set differs.",
)
@click.option(
    "--allow-different-snapshot", is_flag=True, help="Compare runs recorded on different snapshots."
)
@click.option(
    "--no-grouping",
    is_flag=True,
    help="Do not group runs that differ only in their seed as repeats.",
)
@format_option
@output_option
@html_option
@handle_errors
def compare_command(
    runs: tuple[str, ...],
    data: DatasetOptions,
    seed: int,
    resamples: int,
    permutations: int,
    allow_different_questions: bool,
    allow_different_snapshot: bool,
    no_grouping: bool,
    fmt: str,
    output: Path | None,
    html: Path | None,
) -> None:
    """Compare RUNS (BASE CANDIDATE [MORE ...]): files, or names of runs in the dataset.

    Runs that differ only in their recorded seed are grouped as repeats of one configuration;
    the first run's configuration is the base, every other one is compared with it.
    """
    evaluation, names = load_runs(runs, data, "compare", metrics=data.metric_names)
    result = compare(
        evaluation,
        names,
        seed=seed,
        resamples=resamples,
        permutations=permutations,
        allow_different_questions=allow_different_questions,
        allow_different_snapshot=allow_different_snapshot,
        group=not no_grouping,
    )
    if fmt == "json":
        text = dumps(comparison_json(result))
    elif fmt == "markdown":
        text = render_comparison_markdown(result)
    else:
        text = render_comparison_table(result)
    write_output(text, output)
    if html is not None:
        write_html(evaluation, html, comparison=result)
