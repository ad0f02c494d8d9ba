"""`ragtriage judge`: label claims and reference facts with an automatic judge."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import InputError, Problem
from ..judges import (
    ClientOptions,
    JudgeResult,
    JudgeSpec,
    LexicalJudge,
    Prices,
    estimate,
    estimate_lines,
    judge_dataset_async,
    run_llm_judge,
    summary_lines,
    write_outputs,
)
from ..loading import Dataset, load_dataset
from ._common import KType, handle_errors


class _Bar:
    """Adapts rich's progress bar to the judge's progress protocol."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._task = progress.add_task("judging", total=0)

    def add_total(self, count: int) -> None:
        task = self._progress.tasks[0]
        self._progress.update(self._task, total=(task.total or 0) + count)

    def advance(self) -> None:
        self._progress.advance(self._task)


def _judge_on_ray(loaded: Dataset, address: str | None, k: int | None) -> JudgeResult:
    """The lexical judge over shards of questions on Ray: the same labels as locally."""
    from ..engines import RayEngine
    from ..engines.judging import judge_on_engine

    with RayEngine(address) as ray_engine:
        return judge_on_engine(loaded, LexicalJudge, ray_engine, k=k)


def _usage(option: str, expected: str, found: str) -> InputError:
    return InputError([Problem("<command line>", None, option, expected, found)])


@click.command("judge")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--snapshot", type=click.Path(path_type=Path), help="Snapshot file (native sets).")
@click.option(
    "--run", "runs", multiple=True, type=click.Path(path_type=Path), help="Run file; repeatable."
)
@click.option(
    "-k", "k", type=KType(), default=None, help="Cut-off for the context when a run records none."
)
@click.option(
    "--out-dir",
    type=click.Path(path_type=Path),
    help="Where to write <run>.labels.json (and <run>.run.json).",
)
@click.option(
    "--judge",
    "kind",
    type=click.Choice(["llm", "lexical"]),
    default="llm",
    show_default=True,
    help="`lexical` is the offline BASELINE (word/character overlap), not a model.",
)
@click.option("--base-url", help="OpenAI-compatible API base, e.g. http://127.0.0.1:8080/v1.")
@click.option("--model", help="Model name sent to the endpoint (stored with every label).")
@click.option("--api-key-env", metavar="NAME", help="Environment variable that holds the API key.")
@click.option(
    "--endpoint-kind",
    default="openai-compatible",
    show_default=True,
    help="What serves the model (llama.cpp, vllm, ollama ...), stored with the labels.",
)
@click.option("--prompt-version", default="v1", show_default=True, help="Prompt template version.")
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Sampling seed (temperature is always 0).",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1),
    default=512,
    show_default=True,
    help="Output token limit per call.",
)
@click.option(
    "--response-format",
    type=click.Choice(["json_object", "none"]),
    default="json_object",
    show_default=True,
    help="Ask the endpoint for JSON output, or not.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Requests in flight.",
)
@click.option(
    "--max-retries",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Retries on HTTP 408/409/425/429/500/502/503/504, timeouts and transport errors.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds per request.",
)
@click.option(
    "--retry-delay",
    type=click.FloatRange(min=0),
    default=0.5,
    show_default=True,
    help="First retry delay in seconds (doubles each retry).",
)
@click.option(
    "--cache",
    "cache_path",
    type=click.Path(path_type=Path),
    help="SQLite cache file [default: OUT_DIR/judge-cache.sqlite].",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the cache.")
@click.option(
    "--price-per-1k-input", type=click.FloatRange(min=0), help="USD per 1,000 input tokens."
)
@click.option(
    "--price-per-1k-output", type=click.FloatRange(min=0), help="USD per 1,000 output tokens."
)
@click.option("--dry-run", is_flag=True, help="Only estimate calls, tokens and cost.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option(
    "--engine",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="`ray`: judge shards of questions on a Ray cluster (--judge lexical only).",
)
@click.option(
    "--ray-address",
    default=None,
    help="Ray cluster to join (e.g. ray://head:10001 or auto); default: a private local Ray.",
)
@handle_errors
def judge_command(
    dataset: Path,
    snapshot: Path | None,
    runs: tuple[Path, ...],
    k: int | None,
    out_dir: Path | None,
    kind: str,
    base_url: str | None,
    model: str | None,
    api_key_env: str | None,
    endpoint_kind: str,
    prompt_version: str,
    seed: int,
    max_tokens: int,
    response_format: str,
    concurrency: int,
    max_retries: int,
    timeout: float,
    retry_delay: float,
    cache_path: Path | None,
    no_cache: bool,
    price_per_1k_input: float | None,
    price_per_1k_output: float | None,
    dry_run: bool,
    no_progress: bool,
    engine: str,
    ray_address: str | None,
) -> None:
    """Label the claims and reference facts of DATASET's runs with an automatic judge.

    Extracts claims when a run has none (writing a new run file), detects refusals and
    clarifications when no outcome is recorded, judges each claim against the final context
    and each reference fact against the answer. Labels go to OUT_DIR/<run>.labels.json for
    `ragtriage evaluate --labels`; they never replace human labels.
    """
    if ray_address is not None and engine != "ray":
        raise click.UsageError("--ray-address needs --engine ray")
    if engine == "ray" and kind != "lexical":
        # An LLM client cannot travel to a worker; it would need a factory per endpoint.
        raise click.UsageError("--engine ray supports --judge lexical only")
    loaded = load_dataset(dataset, snapshot=snapshot, runs=runs)
    prices = Prices(price_per_1k_input, price_per_1k_output)
    if kind == "llm":
        if not base_url or not model:
            missing = " and ".join(
                o for o, v in (("--base-url", base_url), ("--model", model)) if not v
            )
            raise _usage(missing, "a value for the llm judge (or --judge lexical)", "nothing")
        spec = JudgeSpec(
            model=model,
            endpoint_kind=endpoint_kind,
            prompt_version=prompt_version,
            temperature=0.0,
            seed=seed,
            max_tokens=max_tokens,
            response_format=response_format,
        )
    if out_dir is None and not dry_run:
        raise _usage("--out-dir", "a folder for the label files (or --dry-run)", "nothing")
    if cache_path is None and out_dir is not None:
        cache_path = out_dir / "judge-cache.sqlite"
    if no_cache:
        cache_path = None
    if dry_run:
        if kind == "lexical":
            click.echo("dry run: the lexical baseline makes no calls and costs nothing")
            return
        for line in estimate_lines(
            estimate(loaded, spec, k=k, cache_path=cache_path, prices=prices)
        ):
            click.echo(line)
        return
    assert out_dir is not None  # checked above
    api_key = None
    if api_key_env:
        api_key = os.environ.get(api_key_env)
        if not api_key:
            raise _usage(
                "--api-key-env",
                f"an environment variable {api_key_env} with the key",
                "unset or empty",
            )
    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=no_progress,
        transient=True,
    ) as bar:
        progress = _Bar(bar)
        if engine == "ray":
            result = _judge_on_ray(loaded, ray_address, k)
        elif kind == "lexical":
            result = asyncio.run(
                judge_dataset_async(loaded, LexicalJudge(), k=k, progress=progress)
            )
        else:
            options = ClientOptions(
                base_url=base_url or "",
                api_key=api_key,
                concurrency=concurrency,
                max_retries=max_retries,
                timeout=timeout,
                backoff=retry_delay,
            )
            result = asyncio.run(
                run_llm_judge(
                    loaded,
                    spec,
                    options,
                    k=k,
                    cache_path=cache_path,
                    prices=prices,
                    progress=progress,
                )
            )
    written = write_outputs(result, out_dir)
    for line in summary_lines(result, written):
        click.echo(line)
