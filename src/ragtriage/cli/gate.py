"""`ragtriage gate`: check a run against a release policy; exit 0 pass, 1 fail, 2 invalid input."""

from __future__ import annotations

import sys
from pathlib import Path

import click

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
from ._common import EXIT_GATE_FAILED, format_option, handle_errors, output_option, write_output
from ._dataset import DatasetOptions, load_runs, run_dataset_options


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
@run_dataset_options
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
@format_option
@output_option
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
    data: DatasetOptions,
    seed: int,
    resamples: int,
    fmt: str,
    output: Path | None,
    junit: Path | None,
) -> None:
    """Check RUN (a run file or the name of a run in the dataset) against a release policy."""
    if policy is None:
        if not data.example:
            raise click.UsageError("give --policy (or --example for the example's policy)")
        from ..example import example_paths

        policy = example_paths().policy
    loaded_policy = load_policy(policy)
    wanted = [m.name for m in default_measures()] + [*data.metrics, *loaded_policy.metrics()]
    evaluation, names = load_runs(
        [run] if baseline is None else [run, baseline],
        data,
        "gate",
        metrics=list(dict.fromkeys(wanted)),
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
