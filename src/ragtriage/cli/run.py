"""`ragtriage run`: retrieve for an evaluation set over a snapshot and write a run file."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .._optional import require_extra
from ..endpoint import Endpoint
from ..errors import ProblemCollector
from ..importers import write_native
from ..loading import read_file
from ..retrievers import Chunking, RetrievalConfig, run_retrieval
from ..schemas import EvalSet, Snapshot
from ._common import KType, examples, handle_errors, output_option, snapshot_option
from ._endpoint import endpoint_options


def _read_inputs(snapshot: Path, evalset: Path) -> tuple[Snapshot, EvalSet]:
    collector = ProblemCollector()
    snap_file = read_file(snapshot, collector)
    eval_file = read_file(evalset, collector)
    if snap_file.content is not None and not isinstance(snap_file.content, Snapshot):
        collector.add(str(snapshot), None, "kind", "snapshot", repr(snap_file.source.kind))
    if eval_file.content is not None and not isinstance(eval_file.content, EvalSet):
        collector.add(str(evalset), None, "kind", "evalset", repr(eval_file.source.kind))
    collector.raise_if_any()
    assert isinstance(snap_file.content, Snapshot) and isinstance(eval_file.content, EvalSet)
    return snap_file.content, eval_file.content


@click.command(
    "run",
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
    type=click.Choice(["bm25", "dense", "hybrid"]),
    default="bm25",
    show_default=True,
    help="bm25s, USE multilingual embeddings, or reciprocal-rank fusion of both.",
)
@click.option(
    "--rerank",
    type=click.Choice(["dense", "bm25"]),
    default=None,
    help="Rerank the candidates with the other model.",
)
@click.option(
    "--rerank-depth",
    type=int,
    default=None,
    help="How many head candidates to rerank (default: all).",
)
@click.option(
    "-k",
    "k",
    type=KType(),
    default=10,
    show_default=True,
    help="Most units in the final context.",
)
@click.option(
    "--context-chars",
    type=int,
    default=None,
    help="Most characters in the final context (whole units).",
)
@click.option(
    "--candidates",
    type=int,
    default=100,
    show_default=True,
    help="First-stage candidates recorded.",
)
@click.option(
    "--chunk-chars",
    type=int,
    default=None,
    help="Cut documents into windows of at most N characters.",
)
@click.option(
    "--chunk-sentences", type=int, default=None, help="Cut documents into groups of N sentences."
)
@click.option(
    "--chunked-snapshot",
    type=click.Path(path_type=Path),
    default=None,
    help="Where to write the snapshot with the chunks cut here (required with --chunk-*; "
    "evaluate the run against it).",
)
@click.option(
    "--rrf-c", type=int, default=60, show_default=True, help="Reciprocal-rank fusion constant."
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
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),
    default=None,
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
def run_command(
    dataset: Path,
    snapshot: Path | None,
    retriever: str,
    rerank: str | None,
    rerank_depth: int | None,
    k: int,
    context_chars: int | None,
    candidates: int,
    chunk_chars: int | None,
    chunk_sentences: int | None,
    chunked_snapshot: Path | None,
    rrf_c: int,
    current_only: bool,
    respect_permissions: bool,
    no_latency: bool,
    no_stemming: bool,
    name: str | None,
    cache_dir: Path | None,
    no_cache: bool,
    progress: bool | None,
    endpoint: Endpoint,
    output: Path,
) -> None:
    """Retrieve for every question of DATASET over --snapshot and write a run.

    Without --base-url the run is retrieval-only: answer, outcome and claims are null,
    and `evaluate` reports the answer layers as not applicable. With it, each final context is
    sent to the endpoint and the answer and outcome are recorded; claims are left to a judge.
    """
    require_extra("retrieval", "ragtriage run")
    from ..retrievers import GenerationConfig, TokenizerSpec

    generation = None
    if endpoint.given and endpoint.missing():
        raise click.UsageError("--base-url and --model go together")
    if snapshot is None:
        raise click.UsageError("give --snapshot: the documents to retrieve from")
    if endpoint.base_url is not None and endpoint.model is not None:
        generation = GenerationConfig(
            endpoint.base_url,
            endpoint.model,
            endpoint.api_key(),
            max_tokens=endpoint.max_tokens,
            concurrency=endpoint.concurrency,
            timeout=endpoint.timeout,
        )

    if chunk_chars is not None and chunk_sentences is not None:
        raise click.UsageError("give --chunk-chars or --chunk-sentences, not both")
    chunking = Chunking()
    if chunk_chars is not None:
        chunking = Chunking("chars", chunk_chars)
    elif chunk_sentences is not None:
        chunking = Chunking("sentences", chunk_sentences)
    if chunking.mode != "snapshot" and chunked_snapshot is None:
        raise click.UsageError(
            "--chunk-chars/--chunk-sentences need --chunked-snapshot PATH "
            "(the run's chunk IDs live there)"
        )
    snap, questions = _read_inputs(snapshot, dataset)
    config = RetrievalConfig(
        retriever=retriever,  # type: ignore[arg-type]
        k=k,
        context_chars=context_chars,
        candidates=candidates,
        chunking=chunking,
        rerank=rerank,  # type: ignore[arg-type]
        rerank_depth=rerank_depth,
        rrf_c=rrf_c,
        current_only=current_only,
        record_latency=not no_latency,
        respect_permissions=respect_permissions,
        tokenizer=TokenizerSpec(stemmer=None if no_stemming else "english"),
    )
    run_name = name or (retriever if rerank is None else f"{retriever}+rerank-{rerank}")
    show = sys.stderr.isatty() if progress is None else progress
    result = run_retrieval(
        snap,
        questions,
        config,
        name=run_name,
        cache_dir=cache_dir,
        use_cache=not no_cache,
        progress=show,
        generation=generation,
    )
    write_native(result.run, output)
    if chunked_snapshot is not None:
        write_native(result.snapshot, chunked_snapshot)
    source = "loaded from cache" if result.index_from_cache else "built"
    click.echo(
        f"{run_name}: {len(result.run.results)} questions, {result.units} units "
        f"(index {source} in {result.index_seconds:.1f} s); "
        f"{'run' if generation else 'retrieval-only run'} written to {output}",
        err=True,
    )
