"""`ragtriage export`: write native evaluation sets and runs in other tools' formats."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import ProblemCollector
from ..importers import export_trec
from ..loading import read_file
from ..schemas import EvalSet, Run
from ._common import dataset_argument, examples, handle_errors, run_option


@click.group(
    "export",
    epilog=examples(
        "ragtriage export trec evalset.json --qrels-out evalset.qrels",
        "ragtriage export trec --run bm25.jsonl --run-out bm25.run",
    ),
)
def export_command() -> None:
    """Write native files in other formats (TREC qrels and runs)."""


@export_command.command(
    "trec",
    epilog=examples(
        "ragtriage export trec evalset.json --qrels-out evalset.qrels",
        "ragtriage export trec evalset.json --qrels-out q.qrels --run bm25.jsonl "
        "--run-out bm25.run",
    ),
)
@dataset_argument
@run_option
@click.option(
    "--qrels-out", type=click.Path(path_type=Path), default=None, help="Where to write the qrels."
)
@click.option(
    "--run-out", type=click.Path(path_type=Path), default=None, help="Where to write the TREC run."
)
@click.option("--run-tag", "tag", default=None, help="Run tag (default: the run name).")
@handle_errors
def trec_export_command(
    dataset: Path | None,
    runs: tuple[Path, ...],
    qrels_out: Path | None,
    run_out: Path | None,
    tag: str | None,
) -> None:
    """Qrels from DATASET (every alternative of a group is relevant) and/or a TREC run.

    DATASET is a native evaluation set; --run (one) is written as a TREC run (final ranking).
    """
    if len(runs) > 1:
        raise click.UsageError("give one --run (each TREC run file holds one run)")
    evalset, run_file = dataset, (runs[0] if runs else None)
    if (
        (evalset is None) != (qrels_out is None)
        or (run_file is None) != (run_out is None)
        or (evalset is None and run_file is None)
    ):
        raise click.UsageError("give DATASET with --qrels-out and/or --run with --run-out")
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
