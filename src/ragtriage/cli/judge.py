"""`ragtriage judge`: label claims and reference facts with an automatic judge."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..endpoint import Endpoint
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
from ._common import (
    examples,
    executor_option,
    handle_errors,
    k_option,
    output_option,
    ray_address_option,
    run_option,
    snapshot_option,
)
from ._endpoint import endpoint_options


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


@click.command(
    "judge",
    epilog=examples(
        "ragtriage judge article-fixture.json --judge lexical -o labels/",
        "ragtriage judge evalset.json --snapshot snapshot.json --run a.jsonl --base-url "
        "http://127.0.0.1:8080/v1 --model qwen2.5-7b -o labels/",
        "ragtriage judge evalset.json --snapshot snapshot.json --run a.jsonl --judge lexical "
        "--executor ray -o labels/",
    ),
)
@click.argument("dataset", type=click.Path(path_type=Path))
@snapshot_option
@run_option
@k_option
@output_option("<run>.labels.json (and <run>.run.json)", metavar="DIR")
@click.option(
    "--judge",
    "kind",
    type=click.Choice(["llm", "lexical"]),
    default="llm",
    show_default=True,
    help="`lexical` is the offline BASELINE (word/character overlap), not a model.",
)
@endpoint_options
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
    "--response-format",
    type=click.Choice(["json_object", "none"]),
    default="json_object",
    show_default=True,
    help="Ask the endpoint for JSON output, or not.",
)
@click.option(
    "--max-retries",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Retries on 429/5xx/timeouts.",
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
    help="SQLite cache file [default: OUTPUT/judge-cache.sqlite].",
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
@executor_option
@ray_address_option
@handle_errors
def judge_command(
    dataset: Path,
    snapshot: Path | None,
    runs: tuple[Path, ...],
    k: int | None,
    output: Path | None,
    kind: str,
    endpoint: Endpoint,
    endpoint_kind: str,
    prompt_version: str,
    seed: int,
    response_format: str,
    max_retries: int,
    retry_delay: float,
    cache_path: Path | None,
    no_cache: bool,
    price_per_1k_input: float | None,
    price_per_1k_output: float | None,
    dry_run: bool,
    no_progress: bool,
    executor: str,
    ray_address: str | None,
) -> None:
    """Label the claims and reference facts of DATASET's runs with an automatic judge.

    Extracts claims when a run has none (writing a new run file), detects refusals and
    clarifications when no outcome is recorded, judges each claim against the final context
    and each reference fact against the answer. Labels go to OUTPUT/<run>.labels.json for
    `ragtriage evaluate --labels`; they never replace human labels.
    """
    if ray_address is not None and executor != "ray":
        raise click.UsageError("--ray-address needs --executor ray")
    if executor == "ray" and kind != "lexical":
        # An LLM client cannot travel to a worker; it would need a factory per endpoint.
        raise click.UsageError("--executor ray supports --judge lexical only")
    loaded = load_dataset(dataset, snapshot=snapshot, runs=runs)
    prices = Prices(price_per_1k_input, price_per_1k_output)
    if kind == "llm":
        if endpoint.missing():
            missing = " and ".join(endpoint.missing())
            raise _usage(missing, "a value for the llm judge (or --judge lexical)", "nothing")
        spec = JudgeSpec(
            model=endpoint.model or "",
            endpoint_kind=endpoint_kind,
            prompt_version=prompt_version,
            temperature=0.0,
            seed=seed,
            max_tokens=endpoint.max_tokens,
            response_format=response_format,
        )
    if output is None and not dry_run:
        raise _usage("--output", "a folder for the label files (or --dry-run)", "nothing")
    if cache_path is None and output is not None:
        cache_path = output / "judge-cache.sqlite"
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
    assert output is not None  # checked above
    api_key = endpoint.api_key()
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
        if executor == "ray":
            result = _judge_on_ray(loaded, ray_address, k)
        elif kind == "lexical":
            result = asyncio.run(
                judge_dataset_async(loaded, LexicalJudge(), k=k, progress=progress)
            )
        else:
            options = ClientOptions(
                base_url=endpoint.base_url or "",
                api_key=api_key,
                concurrency=endpoint.concurrency,
                max_retries=max_retries,
                timeout=endpoint.timeout,
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
    written = write_outputs(result, output)
    for line in summary_lines(result, written):
        click.echo(line)
