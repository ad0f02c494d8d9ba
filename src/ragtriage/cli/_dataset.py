"""Dataset options shared by evaluate, diagnose, report, compare and gate, and their loading.

`dataset_options(...)` adds the options that say what to load and how to score it (the
dataset, --snapshot, --labels, -k, --label-policy, ..., --versions, the question filters and
the holdout options); the command receives them all as one `data: DatasetOptions`.
`load_and_evaluate` and `load_runs` turn that value into an `Evaluation`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import click

from ..calibration import read_calibrations
from ..errors import InputError, Problem
from ..evaluation import Evaluation
from ..filters import QuestionSelection, evaluate_selected
from ..loading import Dataset, load_dataset
from ..versions import load_versions
from ._common import KType
from ._filters import question_filters, versions_option
from ._holdout import HoldoutOptions, holdout_options

R = TypeVar("R")

K_HELP_CONTEXT = "Cut-off: the top k of the final ranking is the context when a run records none."
"""-k help of the commands that report measures."""
K_HELP_CUTOFF = "Cut-off of the final ranking (the context when a run records none)."
"""-k help of diagnose, compare and gate."""
UNREVIEWED_HELP = "Score unreviewed answers as not applicable instead of refusing the input."
"""--allow-unreviewed help of evaluate and report."""
MISSING_DATASET = "give DATASET or --example"
"""Usage error of the commands whose DATASET is positional."""


@dataclass(frozen=True)
class DatasetOptions:
    """What the user asked to load and how to score it."""

    dataset: Path | None
    """Evaluation set or article-format file (None: only allowed with --example)."""
    snapshot: Path | None
    """Snapshot file for a native evaluation set."""
    runs: tuple[Path, ...]
    """Run files given with --run (empty for commands whose positional arguments are runs)."""
    labels: tuple[Path, ...]
    """Label files."""
    k: int | None
    """Cut-off of the final ranking."""
    metrics: tuple[str, ...]
    """Measures asked for with --metric (empty: the standard set)."""
    label_policy: str
    """Which labels count."""
    allow_unreviewed: bool
    """Score unreviewed answers as not applicable instead of refusing the input."""
    accept_self_labelling: bool
    """Use judge labels made by the run's own generator."""
    evidence_level: str
    """How retrieved IDs are matched to required evidence."""
    versions: Path | None
    """Document versions file."""
    selection: QuestionSelection
    """The question filters."""
    holdout: HoldoutOptions
    """The holdout options."""
    example: bool
    """Use the bundled example."""
    calibrations: tuple[Path, ...] = ()
    """Calibration records (`ragtriage calibrate --output`) for judge-labelled measures."""

    @property
    def metric_names(self) -> list[str] | None:
        """The --metric values as `evaluate` takes them (None: the standard set)."""
        return list(self.metrics) or None


def example_option(help_text: str) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """`--example` with a command's own help, for commands that list it after their own options."""
    return click.option("--example", is_flag=True, help=help_text)


def dataset_options(
    *,
    dataset: Literal["argument", "option"],
    k_help: str,
    unreviewed_help: str,
    dataset_help: str = "",
    metric_help: str | None = None,
    example_help: str | None = None,
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Add the dataset options; the command receives them as `data: DatasetOptions`.

    `dataset="argument"`: a positional DATASET and repeatable --run; `"option"`: --dataset/-d
    with `dataset_help` (the positional arguments are then the command's own). No --metric
    without `metric_help`. With `example_help`, --example comes right after --evidence-level;
    otherwise the command must declare it itself with `example_option`.
    """
    positional = dataset == "argument"
    options: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = []
    if positional:
        options.append(
            click.argument("dataset", type=click.Path(path_type=Path), required=False)
        )
    else:
        options.append(
            click.option(
                "--dataset",
                "-d",
                "dataset",
                type=click.Path(path_type=Path),
                default=None,
                help=dataset_help,
            )
        )
    options.append(
        click.option(
            "--snapshot",
            type=click.Path(path_type=Path),
            help="Snapshot file (for a native evaluation set).",
        )
    )
    if positional:
        options.append(
            click.option(
                "--run",
                "runs",
                multiple=True,
                type=click.Path(path_type=Path),
                help="Run file (JSON or JSONL); repeatable.",
            )
        )
    options.append(
        click.option(
            "--labels",
            multiple=True,
            type=click.Path(path_type=Path),
            help="Label file for a run; repeatable.",
        )
    )
    options.append(
        click.option(
            "--calibration",
            "calibrations",
            multiple=True,
            type=click.Path(path_type=Path),
            help="Calibration record from `ragtriage calibrate --output`; marks the matching "
            "judge's measures as calibrated; repeatable.",
        )
    )
    options.append(click.option("-k", "k", type=KType(), default=None, help=k_help))
    if metric_help is not None:
        options.append(click.option("--metric", "metrics", multiple=True, help=metric_help))
    options += [
        click.option(
            "--label-policy",
            type=click.Choice(["human-first", "human", "judge"]),
            default="human-first",
            show_default=True,
            help="Which labels count.",
        ),
        click.option("--allow-unreviewed", is_flag=True, help=unreviewed_help),
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
    ]
    if example_help is not None:
        options.append(example_option(example_help))

    def decorator(func: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> R:
            data = DatasetOptions(
                dataset=kwargs.pop("dataset"),
                snapshot=kwargs.pop("snapshot"),
                runs=tuple(kwargs.pop("runs")) if positional else (),
                labels=tuple(kwargs.pop("labels")),
                calibrations=tuple(kwargs.pop("calibrations")),
                k=kwargs.pop("k"),
                metrics=tuple(kwargs.pop("metrics")) if metric_help is not None else (),
                label_policy=kwargs.pop("label_policy"),
                allow_unreviewed=bool(kwargs.pop("allow_unreviewed")),
                accept_self_labelling=bool(kwargs.pop("accept_self_labelling")),
                evidence_level=kwargs.pop("evidence_level"),
                versions=kwargs.pop("versions"),
                selection=kwargs.pop("selection"),
                holdout=kwargs.pop("holdout"),
                example=bool(kwargs.pop("example")),
            )
            return func(*args, data=data, **kwargs)

        # The filter and holdout wrappers sit outside this one, so it receives their values
        # already built; the click options are listed in the order the user sees in --help.
        decorated: Callable[..., R] = holdout_options(wrapper)
        decorated = question_filters(decorated)
        decorated = versions_option(decorated)
        for option in reversed(options):
            decorated = option(decorated)
        return decorated

    return decorator


def run_dataset_options(func: Callable[..., R]) -> Callable[..., R]:
    """The dataset options of compare and gate, whose positional arguments are runs."""
    return dataset_options(
        dataset="option",
        dataset_help="Evaluation set (native) or article-format file the runs answer.",
        k_help=K_HELP_CUTOFF,
        metric_help="Measure to compare; repeatable. Default: the standard set.",
        unreviewed_help="Score unreviewed answers as not applicable.",
        example_help="Use the bundled example (its runs are named baseline and improved).",
    )(func)


def load_from_options(
    data: DatasetOptions,
    command: str,
    runs: Sequence[Path],
    *,
    missing: str = MISSING_DATASET,
    example_runs_once: bool = False,
) -> Dataset:
    """Load the dataset with `runs`, apply --versions and the holdout options.

    With --example, the example's files replace the dataset and snapshot and its runs come
    first; `example_runs_once` leaves out run files that are already among the example's.
    Without a dataset, `missing` is the usage error.
    """
    dataset, snapshot, files = data.dataset, data.snapshot, list(runs)
    if data.example:
        from ..example import example_paths

        paths = example_paths()
        dataset, snapshot = paths.evalset, paths.snapshot
        if example_runs_once:
            files = [*paths.runs, *(f for f in files if f not in paths.runs)]
        else:
            files = [*paths.runs, *files]
    if dataset is None:
        raise click.UsageError(missing)
    loaded = load_dataset(dataset, snapshot=snapshot, runs=files, labels=data.labels)
    if data.versions is not None:
        loaded = load_versions(loaded, data.versions)
    return data.holdout.apply(loaded, command)


def evaluate_from_options(
    data: DatasetOptions, loaded: Dataset, metrics: Sequence[str] | None
) -> Evaluation:
    """Evaluate the selected questions of `loaded` with the scoring options."""
    return evaluate_selected(
        loaded,
        data.selection,
        k=data.k,
        metrics=None if metrics is None else list(metrics),
        label_policy=data.label_policy,
        allow_unreviewed=data.allow_unreviewed,
        accept_self_labelling=data.accept_self_labelling,
        evidence_level=data.evidence_level,
        calibrations=read_calibrations(data.calibrations),
    )


def load_and_evaluate(
    data: DatasetOptions,
    command: str,
    runs: Sequence[Path],
    *,
    metrics: Sequence[str] | None,
    missing: str = MISSING_DATASET,
) -> Evaluation:
    """Load (see `load_from_options`) and evaluate with `metrics` (None: the standard set)."""
    loaded = load_from_options(data, command, runs, missing=missing)
    return evaluate_from_options(data, loaded, metrics)


def load_runs(
    run_args: Sequence[str],
    data: DatasetOptions,
    command: str,
    *,
    metrics: Sequence[str] | None,
) -> tuple[Evaluation, list[str]]:
    """Load and evaluate; each run argument is a run file or the name of a run in the dataset.

    Returns the evaluation and the run names in the order of `run_args`.
    """
    files = [Path(arg) for arg in run_args if Path(arg).is_file()]
    loaded = load_from_options(
        data,
        command,
        files,
        missing="give --dataset (with --snapshot for a native evaluation set) or --example",
        example_runs_once=True,
    )
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
    return evaluate_from_options(data, loaded, metrics), names
