"""`ragtriage import`: convert other tools' files into native snapshot, evaluation set and runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..api import (
    WrittenNative,
    import_openinference_files,
    import_records_files,
    import_tau2_files,
    import_trec_files,
)
from ._common import examples, handle_errors, output_option, say, snapshot_option
from ._parsing import Command, Group

_OUT = output_option("snapshot.json, evalset.json and the run files", required=True, metavar="DIR")


def _tell(written: WrittenNative) -> None:
    say(written.summary(), err=True)
    for note in written.notes:
        say(f"note: {note}", err=True)


@click.group(
    "import",
    cls=Group,
    epilog=examples(
        "ragtriage import tau2 ../shared/data/tau2-banking-knowledge -o tau2",
        "ragtriage import ragas records.jsonl --name my-rag -o native",
        "ragtriage import trec --qrels q.qrels --trec-run bm25.run -o native",
    ),
)
def import_command() -> None:
    """Convert tau2 data, Ragas/seed/DeepEval records, TREC files or OpenInference traces."""


@import_command.command(
    "tau2",
    short_help="tau2-bench banking knowledge base and tasks.",
    epilog=examples(
        "ragtriage import tau2 ../shared/data/tau2-banking-knowledge -o tau2",
        "ragtriage import tau2 tau2-banking-knowledge -o native && ragtriage run "
        "native/evalset.json --snapshot native/snapshot.json -o native/bm25.jsonl",
    ),
)
@click.argument("directory", type=click.Path(path_type=Path))
@_OUT
@handle_errors
def tau2_command(directory: Path, output: Path) -> None:
    """DIRECTORY holds documents.json.gz and tasks.json (tau2-bench banking_knowledge, MIT)."""
    _tell(import_tau2_files(directory, output=output))


def _records(fmt: str) -> click.Command:
    help_text = {
        "ragas": "Ragas-style records (user_input/question, retrieved_contexts, "
        "retrieved_context_ids, response, reference, reference_context_ids or "
        "reference_contexts).",
        "seed": "The seed article's sample record (question, retrieved_contexts, "
        "retrieved_context_ids, response, reference, reference_context_ids).",
        "deepeval": "DeepEval test cases (input, actual_output, retrieval_context, "
        "expected_output, context).",
    }[fmt]

    short = {
        "ragas": "Ragas-style records.",
        "seed": "The seed article's sample records.",
        "deepeval": "DeepEval test cases.",
    }[fmt]

    @click.command(
        fmt,
        cls=Command,
        short_help=short,
        help=f"{help_text} FILE is a JSON array, JSONL, or an object with one list.",
        epilog=examples(
            f"ragtriage import {fmt} records.jsonl -o native",
            f"ragtriage import {fmt} records.json --name my-rag --dataset-id support-v1 -o native",
        ),
    )
    @click.argument("file", type=click.Path(path_type=Path))
    @_OUT
    @click.option("--name", default="imported", help="Name of the imported run.")
    @click.option(
        "--dataset-id",
        "dataset_id",
        default=None,
        help="Snapshot and evaluation-set ID (default: FORMAT-FILESTEM).",
    )
    @handle_errors
    def command(file: Path, output: Path, name: str, dataset_id: str | None) -> None:
        written = import_records_files(
            file, fmt, output=output, name=name, dataset_id=dataset_id  # type: ignore[arg-type]
        )
        _tell(written)
        if written.ignored_fields:
            say(
                f"ignored fields (not used by ragtriage): {', '.join(written.ignored_fields)}",
                err=True,
            )

    return command


for _fmt in ("ragas", "seed", "deepeval"):
    import_command.add_command(_records(_fmt))


@import_command.command(
    "trec",
    short_help="TREC qrels and runs.",
    epilog=examples(
        "ragtriage import trec --qrels q.qrels -o native",
        "ragtriage import trec --qrels q.qrels --trec-run bm25.run --snapshot snapshot.json "
        "-o native",
    ),
)
@click.option("--qrels", required=True, type=click.Path(path_type=Path), help="TREC qrels file.")
@click.option(
    "--trec-run",
    "trec_runs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="TREC run file; repeatable (named by file stem).",
)
@snapshot_option
@click.option(
    "--dataset-id",
    "dataset_id",
    default="trec",
    help="Evaluation-set (and default snapshot) ID.",
)
@click.option(
    "--allow-extra",
    is_flag=True,
    help="Leave out (with a note) the run questions the qrels do not judge, instead of refusing.",
)
@_OUT
@handle_errors
def trec_command(**options: Any) -> None:
    """TREC qrels (and runs) into an evaluation set (and retrieval-only runs).

    --snapshot is the native snapshot the IDs refer to (default: a text-less one).
    """
    _tell(import_trec_files(**options))


@import_command.command(
    "openinference",
    short_help="OpenInference traces (OTLP, Phoenix).",
    epilog=examples(
        "ragtriage import openinference evalset.json spans.jsonl -o run.jsonl "
        "--match-attribute metadata.question_id --id-key doc_id",
        "ragtriage import openinference evalset.json phoenix-spans.json -o run.jsonl",
    ),
)
@click.argument("dataset", type=click.Path(path_type=Path))
@click.argument("traces", type=click.Path(path_type=Path))
@output_option("the run file", required=True, metavar="FILE")
@click.option("--name", default="imported", help="Name of the imported run.")
@click.option(
    "--match-attribute",
    default=None,
    help="Span attribute holding the question ID, e.g. metadata.question_id "
    "(default: match the root span's input text exactly).",
)
@click.option(
    "--id-key", default=None, help="Document metadata key holding the ID (when no document.id)."
)
@click.option("--refusal-pattern", default=None, help="Regex: answers matching it are refusals.")
@handle_errors
def openinference_command(**options: Any) -> None:
    """TRACES exported as OTLP JSON (lines), console-exporter JSON or Phoenix spans, one
    trace per question of DATASET, into a run (see docs/recording.md).

    Unmatched traces and questions are listed on stderr, never guessed.
    """
    imported = import_openinference_files(**options)
    for line in imported.summary():
        say(line, err=True)
