"""`ragtriage evaluate`: the four layers per question and in aggregate."""

from __future__ import annotations

from pathlib import Path

import click

from ..evaluation import evaluate_files
from ..render import dumps, evaluation_json, render_markdown, render_table
from ._common import KType, handle_errors, write_output


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
    "--evidence-level",
    type=click.Choice(["auto", "document", "chunk", "span"]),
    default="auto",
    show_default=True,
    help="How retrieved IDs are matched to required evidence.",
)
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
    evidence_level: str,
    fmt: str,
    output: Path | None,
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
    result = evaluate_files(
        dataset,
        snapshot=snapshot,
        runs=runs,
        labels=labels,
        k=k,
        metrics=list(metrics) or None,
        label_policy=label_policy,
        allow_unreviewed=allow_unreviewed,
        evidence_level=evidence_level,
    )
    if fmt == "json":
        text = dumps(evaluation_json(result))
    elif fmt == "markdown":
        text = render_markdown(result)
    else:
        text = render_table(result)
    write_output(text, output)
