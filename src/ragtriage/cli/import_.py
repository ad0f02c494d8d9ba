"""`ragtriage import`: convert other tools' files into native snapshot, evaluation set and runs."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import ProblemCollector
from ..importers import import_records, import_tau2, import_trec, write_native
from ..loading import read_file
from ..schemas import EvalSet, Run, Snapshot
from ._common import handle_errors

_OUT = click.option(
    "--output-dir",
    "-o",
    required=True,
    type=click.Path(path_type=Path),
    help="Directory for snapshot.json, evalset.json and the run files.",
)


def _write_all(
    output_dir: Path, snapshot: Snapshot, evalset: EvalSet, runs: tuple[Run, ...]
) -> None:
    write_native(snapshot, output_dir / "snapshot.json")
    write_native(evalset, output_dir / "evalset.json")
    for run in runs:
        write_native(run, output_dir / f"{run.name}.jsonl")
    names = ", ".join(f"{run.name}.jsonl" for run in runs)
    click.echo(
        f"wrote {len(snapshot.documents)} documents, {len(evalset.questions)} questions"
        f"{f' and {len(runs)} run(s) ({names})' if runs else ''} to {output_dir}",
        err=True,
    )


@click.group("import")
def import_command() -> None:
    """Convert tau2 data, Ragas/seed/DeepEval records, TREC files or OpenInference traces."""


@import_command.command("tau2", short_help="tau2-bench banking knowledge base and tasks.")
@click.argument("directory", type=click.Path(path_type=Path))
@_OUT
@handle_errors
def tau2_command(directory: Path, output_dir: Path) -> None:
    """DIRECTORY holds documents.json.gz and tasks.json (tau2-bench banking_knowledge, MIT)."""
    data = import_tau2(directory)
    _write_all(output_dir, data.snapshot, data.evalset, ())


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
        short_help=short,
        help=f"{help_text} FILE is a JSON array, JSONL, or an object with one list.",
    )
    @click.argument("file", type=click.Path(path_type=Path))
    @_OUT
    @click.option("--name", default="imported", show_default=True, help="Name of the imported run.")
    @click.option(
        "--id",
        "dataset_id",
        default=None,
        help="Snapshot and evaluation-set ID (default: FORMAT-FILESTEM).",
    )
    @handle_errors
    def command(file: Path, output_dir: Path, name: str, dataset_id: str | None) -> None:
        data = import_records(file, fmt, name=name, dataset_id=dataset_id)  # type: ignore[arg-type]
        _write_all(output_dir, data.snapshot, data.evalset, (data.run,))
        if data.ignored_fields:
            click.echo(
                f"ignored fields (not used by ragtriage): {', '.join(data.ignored_fields)}",
                err=True,
            )

    return command


for _fmt in ("ragas", "seed", "deepeval"):
    import_command.add_command(_records(_fmt))


@import_command.command("trec", short_help="TREC qrels and runs.")
@click.option("--qrels", required=True, type=click.Path(path_type=Path), help="TREC qrels file.")
@click.option(
    "--run",
    "runs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="TREC run file; repeatable (named by file stem).",
)
@click.option(
    "--snapshot",
    type=click.Path(path_type=Path),
    default=None,
    help="Native snapshot the IDs refer to (default: a text-less one).",
)
@click.option(
    "--id",
    "dataset_id",
    default="trec",
    show_default=True,
    help="Evaluation-set (and default snapshot) ID.",
)
@_OUT
@handle_errors
def trec_command(
    qrels: Path, runs: tuple[Path, ...], snapshot: Path | None, dataset_id: str, output_dir: Path
) -> None:
    """TREC qrels (and runs) into an evaluation set (and retrieval-only runs)."""
    snap: Snapshot | None = None
    if snapshot is not None:
        collector = ProblemCollector()
        loaded = read_file(snapshot, collector)
        if loaded.content is not None and not isinstance(loaded.content, Snapshot):
            collector.add(str(snapshot), None, "kind", "snapshot", repr(loaded.source.kind))
        collector.raise_if_any()
        assert isinstance(loaded.content, Snapshot)
        snap = loaded.content
    data = import_trec(qrels, runs, snapshot=snap, dataset_id=dataset_id)
    _write_all(output_dir, data.snapshot, data.evalset, data.runs)


@import_command.command("openinference", short_help="OpenInference traces (OTLP, Phoenix).")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--evalset", required=True, type=click.Path(path_type=Path), help="The questions traced."
)
@click.option("--output", required=True, type=click.Path(path_type=Path), help="Run file to write.")
@click.option("--name", default="imported", show_default=True, help="Name of the imported run.")
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
def openinference_command(
    file: Path,
    evalset: Path,
    output: Path,
    name: str,
    match_attribute: str | None,
    id_key: str | None,
    refusal_pattern: str | None,
) -> None:
    """Traces exported as OTLP JSON (lines), console-exporter JSON or Phoenix spans, one
    trace per question, into a run (see docs/recording.md).

    Unmatched traces and questions are listed on stderr, never guessed.

    \b
    Example:
      ragtriage import openinference spans.jsonl --evalset evalset.json \\
        --output run.jsonl --match-attribute metadata.question_id --id-key doc_id
    """
    from ..importers import import_openinference

    collector = ProblemCollector()
    loaded = read_file(evalset, collector)
    if loaded.content is not None and not isinstance(loaded.content, EvalSet):
        collector.add(str(evalset), None, "kind", "evalset", repr(loaded.source.kind))
    collector.raise_if_any()
    assert isinstance(loaded.content, EvalSet)
    data = import_openinference(
        file,
        loaded.content,
        name=name,
        id_attribute=match_attribute,
        id_key=id_key,
        refusal_pattern=refusal_pattern,
    )
    write_native(data.run, output)
    click.echo(f"wrote {len(data.run.results)} result(s) to {output}", err=True)
    for m in data.unmatched_traces:
        click.echo(f"unmatched trace {m.trace_id}: {m.reason}", err=True)
    for q in data.unmatched_questions:
        click.echo(f"unmatched question {q}: no trace answered it", err=True)
