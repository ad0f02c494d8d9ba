"""`ragtriage export`: write native evaluation sets and runs in other tools' formats."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import ProblemCollector
from ..importers import export_trec
from ..loading import read_file
from ..schemas import EvalSet, Run
from ._common import handle_errors


@click.group("export")
def export_command() -> None:
    """Write native files in other formats (TREC qrels and runs)."""


@export_command.command("trec")
@click.option(
    "--evalset",
    type=click.Path(path_type=Path),
    default=None,
    help="Evaluation set to write as qrels.",
)
@click.option(
    "--run",
    "run_file",
    type=click.Path(path_type=Path),
    default=None,
    help="Run to write as a TREC run (final ranking).",
)
@click.option(
    "--qrels-out", type=click.Path(path_type=Path), default=None, help="Where to write the qrels."
)
@click.option(
    "--run-out", type=click.Path(path_type=Path), default=None, help="Where to write the TREC run."
)
@click.option("--tag", default=None, help="Run tag (default: the run name).")
@handle_errors
def trec_export_command(
    evalset: Path | None,
    run_file: Path | None,
    qrels_out: Path | None,
    run_out: Path | None,
    tag: str | None,
) -> None:
    """Qrels from an evaluation set (every alternative of a group is relevant) and/or a TREC run."""
    if (
        (evalset is None) != (qrels_out is None)
        or (run_file is None) != (run_out is None)
        or (evalset is None and run_file is None)
    ):
        raise click.UsageError("give --evalset with --qrels-out and/or --run with --run-out")
    collector = ProblemCollector()
    ev = read_file(evalset, collector) if evalset is not None else None
    run = read_file(run_file, collector) if run_file is not None else None
    if ev is not None and ev.content is not None and not isinstance(ev.content, EvalSet):
        collector.add(str(evalset), None, "kind", "evalset", repr(ev.source.kind))
    if run is not None and run.content is not None and not isinstance(run.content, Run):
        collector.add(str(run_file), None, "kind", "run", repr(run.source.kind))
    collector.raise_if_any()
    export_trec(
        ev.content if ev is not None and isinstance(ev.content, EvalSet) else None,
        run.content if run is not None and isinstance(run.content, Run) else None,
        qrels_path=qrels_out,
        run_path=run_out,
        tag=tag,
    )
