"""One option group for an OpenAI-compatible endpoint, shared by `judge` and `run`.

Same names, defaults, ranges and help in both commands; where the two use the endpoint for
different things (a JSON verdict for the judge, an answer for `run`), the help says so. Each
option's name is the library's keyword (`judge_files`, `run_files`: `base_url`, `model`, ...),
so a command hands its options on as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from ..endpoint import (
    CONCURRENCY_RANGE,
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TIMEOUT,
    MAX_TOKENS_RANGE,
    TIMEOUT_RANGE,
)
from ._bounds import bounded
from ._common import with_options

R = TypeVar("R")

_OPTIONS = (
    click.option(
        "--base-url",
        default=None,
        metavar="URL",
        help="OpenAI-compatible API base, e.g. http://127.0.0.1:8080/v1 (judge: the judging "
        "model; run: the generator; without it a run is retrieval-only).",
    ),
    click.option(
        "--model",
        default=None,
        metavar="NAME",
        help="Model name sent to the endpoint (recorded with every label and run).",
    ),
    click.option(
        "--api-key-env",
        default=None,
        metavar="NAME",
        help="Environment variable that holds the endpoint's API key.",
    ),
    click.option(
        "--max-tokens",
        type=bounded(MAX_TOKENS_RANGE),
        default=DEFAULT_MAX_TOKENS,
        help="Output token limit per call (judge: one JSON verdict; run: the answer).",
    ),
    click.option(
        "--concurrency",
        type=bounded(CONCURRENCY_RANGE),
        default=DEFAULT_CONCURRENCY,
        help="Requests in flight at once.",
    ),
    click.option(
        "--timeout",
        type=bounded(TIMEOUT_RANGE),
        default=DEFAULT_TIMEOUT,
        help="Seconds per request, in total (connect, send and every read).",
    ),
)


def endpoint_options(func: Callable[..., R]) -> Callable[..., R]:
    """Add the endpoint options (`base_url`, `model`, `api_key_env`, `max_tokens`,
    `concurrency`, `timeout`)."""
    return with_options(func, _OPTIONS)
