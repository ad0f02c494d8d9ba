"""`ragtriage export`: write native evaluation sets and runs in other tools' formats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..api import export_trec_files
from ..holdout import HoldoutPolicy
from ._common import dataset_argument, examples, handle_errors, output_path_option
from ._dataset import print_notice
from ._holdout import holdout_options
from ._parsing import Group


@click.group(
    "export",
    cls=Group,
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
        "ragtriage export trec evalset.json --run bm25.jsonl --run-out bm25.run",
    ),
)
@dataset_argument
@click.option("--run", "runs", multiple=True, type=click.Path(path_type=Path),
              help="Run file (JSON or JSONL) to write as a TREC run; one.")
@output_path_option("--qrels-out", help="Where to write the qrels.")
@output_path_option("--run-out", help="Where to write the TREC run.")
@click.option("--run-tag", default=None, help="Run tag (default: the run name).")
@holdout_options("Write the holdout questions too")
@handle_errors
def trec_export_command(holdout: HoldoutPolicy, **options: Any) -> None:
    """Qrels from DATASET (every alternative of a group is relevant) and/or a TREC run.

    DATASET is a native evaluation set; --run (one) is written as a TREC run (final ranking).
    DATASET's holdout questions are left out of both unless --include-holdout; DATASET
    without --qrels-out says which to leave out of the run.
    """
    export_trec_files(
        **options, include_holdout=holdout.include, who=holdout.who,
        holdout_warn_after=holdout.warn_after, ledger=holdout.ledger, notify=print_notice,
    )
