"""`ragtriage report`: one self-contained HTML file for people to look at in review."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..evaluation import Evaluation
from ..filters import QuestionSelection, evaluate_selected
from ..loading import load_dataset
from ..versions import load_versions
from ._common import KType, handle_errors, write_output
from ._filters import question_filters, versions_option
from ._holdout import HoldoutOptions, holdout_options

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
@click.option(
    "--dataset",
    "-d",
    "dataset",
    type=click.Path(path_type=Path),
    help="Evaluation set or article-format file.",
)
@click.option(
    "--snapshot",
    type=click.Path(path_type=Path),
    help="Snapshot file (for a native evaluation set).",
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
    help="Measure to report; repeatable. Default: the standard set.",
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
    "--html",
    "html",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Write the HTML report to FILE.",
)
@click.option("--title", default="ragtriage report", show_default=True, help="The page title.")
@click.option(
    "--example", is_flag=True, help="Report on the bundled example (its runs come first)."
)
@handle_errors
def report_command(
    runs: tuple[Path, ...],
    dataset: Path | None,
    snapshot: Path | None,
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
    html: Path,
    title: str,
    example: bool,
) -> None:
    """Write RUN... (with the evaluation set of --dataset) as one HTML file.

    The file needs no network: charts, script, styles and data are inside it. The first
    run is the base that later runs are compared with.
    """
    if example:
        from ..example import example_paths

        paths = example_paths()
        dataset, snapshot = paths.evalset, paths.snapshot
        runs = (*paths.runs, *runs)
    if dataset is None:
        raise click.UsageError("give --dataset FILE or --example")
    loaded = load_dataset(dataset, snapshot=snapshot, runs=runs, labels=labels)
    if versions is not None:
        loaded = load_versions(loaded, versions)
    loaded = holdout.apply(loaded, "report")
    evaluation = evaluate_selected(
        loaded,
        selection,
        k=k,
        metrics=list(metrics) or None,
        label_policy=label_policy,
        allow_unreviewed=allow_unreviewed,
        accept_self_labelling=accept_self_labelling,
        evidence_level=evidence_level,
    )
    write_html(evaluation, html, title)
    click.echo(f"wrote {html}", err=True)
