"""`ragtriage run`: retrieve for an evaluation set over a snapshot and write a run file."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import click

from .._console import stderr_is_terminal
from ..api import run_files
from ..errors import counted
from ..validation import (
    CHUNK_CHARS_RANGE,
    CHUNK_SENTENCES_RANGE,
    CONTEXT_CHARS_RANGE,
    CUTOFF_RANGE,
    RRF_C_RANGE,
    RerankKind,
    RetrieverKind,
)
from ._bounds import KType, bounded
from ._common import (
    examples,
    handle_errors,
    output_option,
    output_path_option,
    say,
    snapshot_option,
)
from ._endpoint import endpoint_options
from ._parsing import Command


@click.command(
    "run",
    cls=Command,
    epilog=examples(
        "ragtriage run evalset.json --snapshot snapshot.json -o bm25.jsonl",
        "ragtriage run evalset.json --snapshot snapshot.json --retriever hybrid --rerank dense "
        "-k 5 -o hybrid.jsonl",
        "ragtriage run evalset.json --snapshot snapshot.json --base-url http://127.0.0.1:8080/v1 "
        "--model smollm2 -o generated.jsonl",
    ),
)
@click.argument("dataset", type=click.Path(path_type=Path))
@snapshot_option
@click.option(
    "--retriever",
    type=click.Choice(get_args(RetrieverKind)),
    default="bm25",
    help="bm25s, USE multilingual embeddings, or reciprocal-rank fusion of both.",
)
@click.option(
    "--rerank",
    type=click.Choice(get_args(RerankKind)),
    default=None,
    help="Rerank the candidates with the other model.",
)
@click.option(
    "--rerank-depth",
    type=bounded(CUTOFF_RANGE),
    default=None,
    help="How many head candidates to rerank (default: all).",
)
@click.option(
    "-k",
    "k",
    type=KType(),
    default=10,
    help="Most units in the final context.",
)
@click.option(
    "--context-chars",
    type=bounded(CONTEXT_CHARS_RANGE),
    default=None,
    help="Most characters in the final context (whole units).",
)
@click.option(
    "--candidates",
    type=bounded(CUTOFF_RANGE),
    default=100,
    help="First-stage candidates recorded.",
)
@click.option(
    "--chunk-chars",
    type=bounded(CHUNK_CHARS_RANGE),
    default=None,
    help="Cut documents into windows of at most N characters.",
)
@click.option(
    "--chunk-sentences",
    type=bounded(CHUNK_SENTENCES_RANGE),
    default=None,
    help="Cut documents into groups of N sentences.",
)
@output_path_option(
    "--chunked-snapshot",
    help="Where to write the snapshot with the chunks cut here (required with --chunk-*; "
    "evaluate the run against it).",
)
@click.option(
    "--rrf-c",
    type=bounded(RRF_C_RANGE),
    default=60,
    help="Reciprocal-rank fusion constant.",
)
@click.option(
    "--current-only", is_flag=True, help="Retrieve only from current (not superseded) documents."
)
@click.option(
    "--respect-permissions",
    is_flag=True,
    help="Retrieve only documents the question's user_groups may read.",
)
@click.option(
    "--no-latency",
    is_flag=True,
    help="Leave latency out of the run, so reruns of one configuration are byte-identical.",
)
@click.option("--no-stemming", is_flag=True, help="Do not stem English words for bm25.")
@click.option("--name", default=None, help="Run name (default: the retriever and reranker).")
@output_path_option(
    "--cache-dir",
    folder=True,
    help="Index cache directory (default: $RAGTRIAGE_CACHE_DIR or the user cache dir).",
)
@click.option("--no-cache", is_flag=True, help="Build the indexes in memory only.")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bars on stderr (default: when stderr is a terminal).",
)
@endpoint_options
@output_option("the run file (.jsonl or .json)", required=True)
@handle_errors
def run_command(output: Path, progress: bool | None, **options: Any) -> None:
    """Retrieve for every question of DATASET over --snapshot and write a run.

    Without --base-url the run is retrieval-only: answer, outcome and claims are null,
    and `evaluate` reports the answer layers as not applicable. With it, each final context is
    sent to the endpoint and the answer and outcome are recorded; claims are left to a judge.
    """
    written = run_files(
        output=output,
        progress=stderr_is_terminal() if progress is None else progress,
        **options,
    )
    result = written.output
    source = "loaded from cache" if result.index_from_cache else "built"
    say(
        f"{result.run.name}: {counted(len(result.run.results), 'question')}, "
        f"{counted(result.units, 'unit')} "
        f"(index {source} in {result.index_seconds:.1f} s); "
        f"{'run' if written.generated else 'retrieval-only run'} written to {output}",
        err=True,
    )
    if note := result.unindexed_note():
        say(f"note: {note}", err=True)
