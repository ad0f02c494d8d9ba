"""`ragtriage run`: retrieve for an evaluation set over a snapshot and write a run file."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .._optional import require_extra
from ..errors import ProblemCollector
from ..importers import write_native
from ..loading import read_file
from ..retrievers import Chunking, RetrievalConfig, run_retrieval
from ..schemas import EvalSet, Snapshot
from ._common import KType, handle_errors


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


@click.command("run")
@click.option(
    "--snapshot",
    required=True,
    type=click.Path(path_type=Path),
    help="Snapshot file to retrieve from.",
)
@click.option(
    "--evalset",
    required=True,
    type=click.Path(path_type=Path),
    help="Evaluation set whose questions are the queries.",
)
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
    "--k",
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
@click.option(
    "--generate-url",
    default=None,
    help="OpenAI-compatible API base (e.g. http://127.0.0.1:8080/v1): generate answers from "
    "the final context. Without it the run is retrieval-only.",
)
@click.option("--generate-model", default=None, help="Model name for --generate-url.")
@click.option(
    "--api-key-env", default=None, help="Environment variable holding the endpoint's API key."
)
@click.option("--max-tokens", type=int, default=256, show_default=True, help="Answer length cap.")
@click.option("--concurrency", type=int, default=2, show_default=True, help="Requests at once.")
@click.option(
    "--output",
    required=True,
    type=click.Path(path_type=Path),
    help="Run file to write (.jsonl or .json).",
)
@handle_errors
def run_command(
    snapshot: Path,
    evalset: Path,
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
    generate_url: str | None,
    generate_model: str | None,
    api_key_env: str | None,
    max_tokens: int,
    concurrency: int,
    output: Path,
) -> None:
    """Retrieve for every question of EVALSET over SNAPSHOT and write a run.

    Without --generate-url the run is retrieval-only: answer, outcome and claims are null,
    and `evaluate` reports the answer layers as not applicable. With it, each final context is
    sent to the endpoint and the answer and outcome are recorded; claims are left to a judge.
    """
    require_extra("retrieval", "ragtriage run")
    from ..retrievers import GenerationConfig, TokenizerSpec

    generation = None
    if (generate_url is None) != (generate_model is None):
        raise click.UsageError("--generate-url and --generate-model go together")
    if generate_url is not None and generate_model is not None:
        api_key = os.environ.get(api_key_env) if api_key_env else None
        if api_key_env and api_key is None:
            raise click.UsageError(f"environment variable {api_key_env} is not set")
        generation = GenerationConfig(
            generate_url, generate_model, api_key, max_tokens=max_tokens, concurrency=concurrency
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
    snap, questions = _read_inputs(snapshot, evalset)
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
