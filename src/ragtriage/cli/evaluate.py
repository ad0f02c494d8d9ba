"""`ragtriage evaluate`: the four layers per question and in aggregate."""

from __future__ import annotations

from pathlib import Path

import click

from ..filters import QuestionSelection, evaluate_selected
from ..loading import load_dataset
from ..render import dumps, evaluation_json, render_markdown, render_table
from ..versions import load_versions
from ._common import KType, handle_errors, write_output
from ._filters import question_filters, versions_option
from ._holdout import HoldoutOptions, holdout_options
from .report import html_option, write_html


@click.command("evaluate")
@click.argument("dataset", type=click.Path(path_type=Path), required=False)
@click.option(
    "--snapshot",
    type=click.Path(path_type=Path),
    help="Snapshot file (for a native evaluation set).",
)
@click.option(
    "--run",
    "runs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Run file (JSON or JSONL); repeatable.",
)
@click.option(
    "--labels",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Label file for a run; repeatable.",
)
@click.option(
    "-k",
    "k",
    type=KType(),
    default=None,
    help="Cut-off: the top k of the final ranking is the context when a run records none.",
)
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    help="Measure to report (e.g. evidence_recall); repeatable. Default: the standard set.",
)
@click.option(
    "--label-policy",
    type=click.Choice(["human-first", "human", "judge"]),
    default="human-first",
    show_default=True,
    help="Which labels count.",
)
@click.option(
    "--allow-unreviewed",
    is_flag=True,
    help="Score unreviewed answers as not applicable instead of refusing the input.",
)
@click.option(
    "--accept-self-labelling",
    is_flag=True,
    help="Use judge labels made by the run's own generator; affected metrics are marked.",
)
@click.option(
    "--evidence-level",
    type=click.Choice(["auto", "document", "chunk", "span"]),
    default="auto",
    show_default=True,
    help="How retrieved IDs are matched to required evidence.",
)
@versions_option
@question_filters
@holdout_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "markdown"]),
    default="table",
    show_default=True,
)
@click.option(
    "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout."
)
@html_option
@click.option("--example", is_flag=True, help="Evaluate the bundled example instead of DATASET.")
@handle_errors
def evaluate_command(
    dataset: Path | None,
    snapshot: Path | None,
    runs: tuple[Path, ...],
    labels: tuple[Path, ...],
    k: int | None,
    metrics: tuple[str, ...],
    label_policy: str,
    allow_unreviewed: bool,
    accept_self_labelling: bool,
    evidence_level: str,
    versions: Path | None,
    selection: QuestionSelection,
    holdout: HoldoutOptions,
    fmt: str,
    output: Path | None,
    html: Path | None,
    example: bool,
) -> None:
    """Score DATASET (an evaluation set or an article-format file) and its runs."""
    if example:
        from ..example import example_paths

        paths = example_paths()
        dataset, snapshot = paths.evalset, paths.snapshot
        runs = (*paths.runs, *runs)
    if dataset is None:
        raise click.UsageError("give DATASET or --example")
    loaded = load_dataset(dataset, snapshot=snapshot, runs=runs, labels=labels)
    if versions is not None:
        loaded = load_versions(loaded, versions)
    loaded = holdout.apply(loaded, "evaluate")
    result = evaluate_selected(
        loaded,
        selection,
        k=k,
        metrics=list(metrics) or None,
        label_policy=label_policy,
        allow_unreviewed=allow_unreviewed,
        accept_self_labelling=accept_self_labelling,
        evidence_level=evidence_level,
    )
    if fmt == "json":
        text = dumps(evaluation_json(result))
    elif fmt == "markdown":
        text = render_markdown(result)
    else:
        text = render_table(result)
    write_output(text, output)
    if html is not None:
        write_html(result, html)
