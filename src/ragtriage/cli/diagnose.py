"""`ragtriage diagnose`: the failing pipeline stage of every question, with the proving IDs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .._version import __version__
from ..diagnosis import (
    diagnose,
    render_diagnosis_markdown,
    render_diagnosis_table,
    run_diagnosis_json,
)
from ..filters import QuestionSelection, evaluate_selected
from ..loading import load_dataset
from ..render import dumps
from ..versions import load_versions
from ._common import KType, handle_errors, write_output
from ._filters import question_filters, versions_option
from ._holdout import HoldoutOptions, holdout_options


@click.command("diagnose")
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
    help="Cut-off of the final ranking (the context when a run records none).",
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
    help="Accept unreviewed answers (their unlabelled claims are diagnosed judge_uncertain).",
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
@click.option("--example", is_flag=True, help="Diagnose the bundled example instead of DATASET.")
@handle_errors
def diagnose_command(
    dataset: Path | None,
    snapshot: Path | None,
    runs: tuple[Path, ...],
    labels: tuple[Path, ...],
    k: int | None,
    label_policy: str,
    allow_unreviewed: bool,
    accept_self_labelling: bool,
    evidence_level: str,
    versions: Path | None,
    selection: QuestionSelection,
    holdout: HoldoutOptions,
    fmt: str,
    output: Path | None,
    example: bool,
) -> None:
    """Say where each question of DATASET's runs failed: primary stage, secondary ones, IDs."""
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
    loaded = holdout.apply(loaded, "diagnose")
    evaluation = evaluate_selected(
        loaded,
        selection,
        k=k,
        metrics=[],
        label_policy=label_policy,
        allow_unreviewed=allow_unreviewed,
        accept_self_labelling=accept_self_labelling,
        evidence_level=evidence_level,
    )
    found = diagnose(evaluation)
    if fmt == "json":
        report: dict[str, Any] = {
            "schema_version": 1,
            "tool": {"name": "ragtriage", "version": __version__},
            "inputs": [
                {"path": s.path, "kind": s.kind, "sha256": s.sha256} for s in evaluation.sources
            ],
            "selection": selection.describe(),
            "runs": [run_diagnosis_json(run) for run in found],
        }
        text = dumps(report)
    elif fmt == "markdown":
        text = render_diagnosis_markdown(found, selection.describe())
    else:
        text = render_diagnosis_table(found)
    write_output(text, output)
