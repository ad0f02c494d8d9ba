"""`ragtriage compare`: runs on one evaluation set, question by question, with paired statistics."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from ..compare import compare, comparison_json, render_comparison_markdown, render_comparison_table
from ..errors import InputError, Problem
from ..evaluation import Evaluation
from ..filters import QuestionSelection, evaluate_selected
from ..loading import load_dataset
from ..render import dumps
from ..versions import load_versions
from ._common import KType, handle_errors, write_output
from ._filters import question_filters, versions_option
from ._holdout import HoldoutOptions, holdout_options
from .report import html_option, write_html

R = TypeVar("R")

_DATASET_OPTIONS = (
    click.option(
        "--dataset",
        "-d",
        "dataset",
        type=click.Path(path_type=Path),
        default=None,
        help="Evaluation set (native) or article-format file the runs answer.",
    ),
    click.option(
        "--snapshot",
        type=click.Path(path_type=Path),
        help="Snapshot file (for a native evaluation set).",
    ),
    click.option(
        "--labels",
        multiple=True,
        type=click.Path(path_type=Path),
        help="Label file for a run; repeatable.",
    ),
    click.option(
        "-k",
        "k",
        type=KType(),
        default=None,
        help="Cut-off of the final ranking (the context when a run records none).",
    ),
    click.option(
        "--metric",
        "metrics",
        multiple=True,
        help="Measure to compare; repeatable. Default: the standard set.",
    ),
    click.option(
        "--label-policy",
        type=click.Choice(["human-first", "human", "judge"]),
        default="human-first",
        show_default=True,
        help="Which labels count.",
    ),
    click.option(
        "--allow-unreviewed", is_flag=True, help="Score unreviewed answers as not applicable."
    ),
    click.option(
        "--accept-self-labelling",
        is_flag=True,
        help="Use judge labels made by the run's own generator; affected metrics are marked.",
    ),
    click.option(
        "--evidence-level",
        type=click.Choice(["auto", "document", "chunk", "span"]),
        default="auto",
        show_default=True,
        help="How retrieved IDs are matched to required evidence.",
    ),
    click.option(
        "--example",
        is_flag=True,
        help="Use the bundled example (its runs are named baseline and improved).",
    ),
)


def dataset_options(func: Callable[..., R]) -> Callable[..., R]:
    """The dataset options of `evaluate` for commands whose positional arguments are runs."""
    decorated = func
    for option in reversed(_DATASET_OPTIONS):
        decorated = option(decorated)
    return decorated


def load_runs(
    run_args: Sequence[str],
    *,
    dataset: Path | None,
    snapshot: Path | None,
    labels: Sequence[Path],
    example: bool,
    versions: Path | None,
    selection: QuestionSelection,
    holdout: HoldoutOptions,
    command: str,
    **options: Any,
) -> tuple[Evaluation, list[str]]:
    """Load and evaluate; each run argument is a run file or the name of a run in the dataset."""
    files = [Path(arg) for arg in run_args if Path(arg).is_file()]
    if example:
        from ..example import example_paths

        paths = example_paths()
        dataset, snapshot = paths.evalset, paths.snapshot
        files = [*paths.runs, *(f for f in files if f not in paths.runs)]
    if dataset is None:
        raise click.UsageError(
            "give --dataset (with --snapshot for a native evaluation set) or --example"
        )
    loaded = load_dataset(dataset, snapshot=snapshot, runs=files, labels=labels)
    if versions is not None:
        loaded = load_versions(loaded, versions)
    loaded = holdout.apply(loaded, command)
    by_file = {path: name for name, path in (loaded.run_files or {}).items()}
    names = []
    for arg in run_args:
        name = by_file.get(str(Path(arg))) if Path(arg).is_file() else arg
        if name is None or name not in {run.name for run in loaded.runs}:
            known = ", ".join(run.name for run in loaded.runs) or "none"
            raise InputError(
                [
                    Problem(
                        "<command line>",
                        None,
                        "RUN",
                        f"a run file or the name of a loaded run ({known})",
                        repr(arg),
                    )
                ]
            )
        names.append(name)
    return evaluate_selected(loaded, selection, **options), names


@click.command("compare")
@click.argument("runs", nargs=-1, required=True)
@dataset_options
@versions_option
@question_filters
@holdout_options
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
@handle_errors
def compare_command(
    runs: tuple[str, ...],
    dataset: Path | None,
    snapshot: Path | None,
    labels: tuple[Path, ...],
    k: int | None,
    metrics: tuple[str, ...],
    label_policy: str,
    allow_unreviewed: bool,
    accept_self_labelling: bool,
    evidence_level: str,
    example: bool,
    versions: Path | None,
    selection: QuestionSelection,
    holdout: HoldoutOptions,
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
    evaluation, names = load_runs(
        runs,
        dataset=dataset,
        snapshot=snapshot,
        labels=labels,
        example=example,
        versions=versions,
        selection=selection,
        holdout=holdout,
        command="compare",
        k=k,
        metrics=list(metrics) or None,
        label_policy=label_policy,
        allow_unreviewed=allow_unreviewed,
        accept_self_labelling=accept_self_labelling,
        evidence_level=evidence_level,
    )
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
