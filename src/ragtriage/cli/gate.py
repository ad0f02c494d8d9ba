"""`ragtriage gate`: check a run against a release policy; exit 0 pass, 1 fail, 2 invalid input."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..filters import QuestionSelection
from ..gate import (
    gate,
    gate_json,
    load_policy,
    render_gate_markdown,
    render_gate_table,
    render_junit,
)
from ..metrics import default_measures
from ..render import dumps
from ._common import EXIT_GATE_FAILED, handle_errors, write_output
from ._filters import question_filters, versions_option
from ._holdout import HoldoutOptions, holdout_options
from .compare import dataset_options, load_runs


@click.command("gate")
@click.argument("run")
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    default=None,
    help="Release policy (TOML). Default with --example: the example's policy.",
)
@click.option(
    "--baseline",
    default=None,
    metavar="RUN",
    help="Baseline run (file or name) for the regression and drop rules.",
)
@dataset_options
@versions_option
@question_filters
@holdout_options
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed of the paired statistics."
)
@click.option(
    "--resamples",
    type=click.IntRange(min=100),
    default=2000,
    show_default=True,
    help="Bootstrap resamples for the baseline comparison.",
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
@click.option(
    "--junit",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write JUnit XML here (one test case per rule).",
)
@handle_errors
def gate_command(
    run: str,
    policy: Path | None,
    baseline: str | None,
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
    fmt: str,
    output: Path | None,
    junit: Path | None,
) -> None:
    """Check RUN (a run file or the name of a run in the dataset) against a release policy."""
    if policy is None:
        if not example:
            raise click.UsageError("give --policy (or --example for the example's policy)")
        from ..example import example_paths

        policy = example_paths().policy
    loaded_policy = load_policy(policy)
    wanted = [m.name for m in default_measures()] + [*metrics, *loaded_policy.metrics()]
    evaluation, names = load_runs(
        [run] if baseline is None else [run, baseline],
        dataset=dataset,
        snapshot=snapshot,
        labels=labels,
        example=example,
        versions=versions,
        selection=selection,
        holdout=holdout,
        command="gate",
        k=k,
        metrics=list(dict.fromkeys(wanted)),
        label_policy=label_policy,
        allow_unreviewed=allow_unreviewed,
        accept_self_labelling=accept_self_labelling,
        evidence_level=evidence_level,
    )
    result = gate(
        evaluation,
        loaded_policy,
        names[0],
        names[1] if baseline is not None else None,
        seed=seed,
        resamples=resamples,
    )
    if fmt == "json":
        text = dumps(gate_json(result))
    elif fmt == "markdown":
        text = render_gate_markdown(result)
    else:
        text = render_gate_table(result)
    write_output(text, output)
    if junit is not None:
        junit.write_text(render_junit(result), encoding="utf-8")
    if not result.passed:
        sys.exit(EXIT_GATE_FAILED)
