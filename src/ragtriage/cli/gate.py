"""`ragtriage gate`: check a run against a release policy; exit 0 pass, 1 fail, 2 invalid input."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..api import gate_request
from ..fileio import outputs_together
from ..gate import gate_json, render_gate_markdown, render_gate_table, render_junit
from ..render import dumps
from ..request import Request
from ..validation import GATE_RESAMPLES_DEFAULT, RESAMPLES_RANGE, SEED_RANGE
from ._bounds import bounded
from ._common import (
    EXIT_GATE_FAILED,
    examples,
    handle_errors,
    held,
    output_path_option,
    report_options,
    terminal_width,
    write_output,
)
from ._dataset import dataset_options, print_notice
from ._parsing import Command
from .compare import baseline_option, candidate_help


@click.command(
    "gate",
    cls=Command,
    epilog=examples(
        "ragtriage gate --example --candidate improved --baseline baseline",
        "ragtriage gate evalset.json --snapshot snapshot.json --run new.jsonl --policy policy.toml",
        "ragtriage gate evalset.json --snapshot snapshot.json --run old.jsonl --run new.jsonl "
        "--baseline old.jsonl --policy policy.toml --junit gate.xml",
    ),
)
@dataset_options()
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    default=None,
    help="Release policy (TOML; JSON when the name ends in .json). Default with --example:"
    " the example's policy.",
)
@click.option(
    "--candidate",
    default=None,
    metavar="RUN",
    help=f"{candidate_help}: the run gated. Default: the only loaded run besides the baseline.",
)
@baseline_option
@click.option("--seed", type=bounded(SEED_RANGE), default=0, help="Seed of the paired statistics.")
@click.option(
    "--resamples",
    type=bounded(RESAMPLES_RANGE),
    default=GATE_RESAMPLES_DEFAULT,
    help="Bootstrap resamples for the baseline comparison.",
)
@report_options()
@output_path_option("--junit", help="Also write JUnit XML here (one test case per rule).")
@handle_errors
def gate_command(
    request: Request, fmt: str, output: Path | None, junit: Path | None, **options: Any
) -> None:
    """Check a run of DATASET (--candidate) against a release policy, optionally a baseline."""
    result = held(gate_request(request, notify=print_notice, **options))
    if fmt == "json":
        text = dumps(gate_json(result))
    elif fmt == "markdown":
        text = render_gate_markdown(result)
    else:
        text = render_gate_table(result, terminal_width())
    with outputs_together():  # both or neither; stdout, which cannot be taken back, last
        if junit is not None:
            write_output(render_junit(result), junit)
        write_output(text, output)
    if not result.passed:
        sys.exit(EXIT_GATE_FAILED)
