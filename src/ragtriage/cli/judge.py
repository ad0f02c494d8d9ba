"""`ragtriage judge`: label claims and reference facts with an automatic judge."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import click
from rich.progress import Progress, TaskID

from .._console import progress_bar, stderr_is_terminal
from ..api import judge_files
from ..endpoint import (
    DEFAULT_MAX_REPLY_BYTES,
    MAX_REPLY_BYTES_RANGE,
    MAX_RETRIES_RANGE,
    PRICE_PER_1K_RANGE,
    RETRY_DELAY_RANGE,
)
from ..judges import AUTO_RESPONSE_FORMAT, RESPONSE_FORMATS, estimate_lines, summary_lines
from ..validation import SEED_RANGE, JudgeName
from ._bounds import bounded
from ._common import (
    examples,
    executor_options,
    handle_errors,
    output_option,
    run_context_options,
    say,
)
from ._endpoint import endpoint_options
from ._parsing import Command


class _Bar:
    """Adapts rich's progress bar to the judge's progress protocol.

    The bar starts with the first item, so that an input error (raised before any judging)
    prints nothing but the error.
    """

    def __init__(self, enabled: bool) -> None:
        self._enabled = enabled
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def _bar(self) -> tuple[Progress, TaskID]:
        if self._progress is None or self._task is None:
            self._progress = progress_bar(transient=True, disable=not self._enabled)
            self._progress.start()
            self._task = self._progress.add_task("judging", total=0)
        return self._progress, self._task

    def add_total(self, count: int) -> None:
        progress, task = self._bar()
        progress.update(task, total=(progress.tasks[0].total or 0) + count)

    def advance(self) -> None:
        progress, task = self._bar()
        progress.advance(task)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


@click.command(
    "judge",
    cls=Command,
    epilog=examples(
        "ragtriage judge article-fixture.json --judge lexical -o labels/",
        "ragtriage judge evalset.json --snapshot snapshot.json --run a.jsonl --base-url "
        "http://127.0.0.1:8080/v1 --model qwen2.5-7b -o labels/",
        "ragtriage judge evalset.json --snapshot snapshot.json --run a.jsonl --judge lexical "
        "--executor ray -o labels/",
    ),
)
@click.argument("dataset", type=click.Path(path_type=Path))
@run_context_options
@output_option("<run>.labels.json (and <run>.run.json)", metavar="DIR")
@click.option(
    "--judge",
    type=click.Choice(get_args(JudgeName)),
    default="llm",
    help="`lexical` is the offline BASELINE (word/character overlap), not a model.",
)
@endpoint_options
@click.option(
    "--endpoint-kind",
    default="openai-compatible",
    help="What serves the model (llama.cpp, vllm, ollama ...), stored with the labels.",
)
@click.option("--prompt-version", default="v1", help="Prompt template version.")
@click.option(
    "--seed",
    type=bounded(SEED_RANGE),
    default=0,
    help="Sampling seed (temperature is always 0).",
)
@click.option(
    "--response-format",
    type=click.Choice([AUTO_RESPONSE_FORMAT, *RESPONSE_FORMATS]),
    default=AUTO_RESPONSE_FORMAT,
    help="json_schema: constrained output, each task's reply schema in the form the "
    "endpoint kind understands; json_object: any JSON object; none: no response format. "
    "auto: json_schema for --endpoint-kind llama.cpp, json_object otherwise.",
)
@click.option(
    "--max-retries",
    type=bounded(MAX_RETRIES_RANGE),
    default=3,
    help="Retries on HTTP 408/409/425/429/500/502/503/504, timeouts and transport errors.",
)
@click.option(
    "--retry-delay",
    type=bounded(RETRY_DELAY_RANGE),
    default=0.5,
    help="First retry delay in seconds (doubles each retry).",
)
@click.option(
    "--cache",
    type=click.Path(path_type=Path),
    help="SQLite cache file [default: OUTPUT/judge-cache.sqlite].",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the cache.")
@click.option(
    "--price-per-1k-input", type=bounded(PRICE_PER_1K_RANGE), help="USD per 1,000 input tokens."
)
@click.option(
    "--price-per-1k-output", type=bounded(PRICE_PER_1K_RANGE), help="USD per 1,000 output tokens."
)
@click.option(
    "--max-reply-bytes",
    type=bounded(MAX_REPLY_BYTES_RANGE),
    default=DEFAULT_MAX_REPLY_BYTES,
    help="Largest reply read; a bigger one is cannot_judge (not retried, not cached).",
)
@click.option("--dry-run", is_flag=True, help="Only estimate calls, tokens and cost.")
@click.option(
    "--no-progress", is_flag=True, help="No progress bar (shown when stderr is a terminal)."
)
@executor_options
@handle_errors
def judge_command(dry_run: bool, no_progress: bool, **options: Any) -> None:
    """Label the claims and reference facts of DATASET's runs with an automatic judge.

    Extracts claims when a run has none (writing a new run file), detects refusals and
    clarifications when no outcome is recorded, judges each claim against the final context
    and each reference fact against the answer. Labels go to OUTPUT/<run>.labels.json for
    `ragtriage evaluate --labels`; they never replace human labels.
    """
    # Not in a CI log or a file, where the bar would leave a blank line.
    bar = _Bar(enabled=stderr_is_terminal() and not (no_progress or dry_run))
    try:
        outcome = judge_files(dry_run=dry_run, progress=bar, **options)
    finally:
        bar.close()
    if outcome.estimate is not None:
        lines = estimate_lines(outcome.estimate)
    elif outcome.result is not None:
        lines = summary_lines(outcome.result, outcome.written, outcome.holdout)
    else:
        lines = ["dry run: the lexical baseline makes no calls and costs nothing"]
    for line in lines:
        say(line)
