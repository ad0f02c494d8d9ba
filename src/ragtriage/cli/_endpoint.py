"""One option group for an OpenAI-compatible endpoint, shared by `judge` and `run`.

Same names, defaults, ranges and help in both commands; where the two use the endpoint for
different things (a JSON verdict for the judge, an answer for `run`), the help says so.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..endpoint import DEFAULT_CONCURRENCY, DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT, Endpoint
from . import _bounds as bounds
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
        type=bounds.MAX_TOKENS,
        default=DEFAULT_MAX_TOKENS,
        show_default=True,
        help="Output token limit per call (judge: one JSON verdict; run: the answer).",
    ),
    click.option(
        "--concurrency",
        type=bounds.CONCURRENCY,
        default=DEFAULT_CONCURRENCY,
        show_default=True,
        help="Requests in flight at once.",
    ),
    click.option(
        "--timeout",
        type=bounds.TIMEOUT,
        default=DEFAULT_TIMEOUT,
        show_default=True,
        help="Seconds per request, in total (connect, send and every read).",
    ),
)


def endpoint_options(func: Callable[..., R]) -> Callable[..., R]:
    """Add the endpoint options; the command receives them as `endpoint: Endpoint`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> R:
        endpoint = Endpoint(
            base_url=kwargs.pop("base_url"),
            model=kwargs.pop("model"),
            api_key_env=kwargs.pop("api_key_env"),
            max_tokens=int(kwargs.pop("max_tokens")),
            concurrency=int(kwargs.pop("concurrency")),
            timeout=float(kwargs.pop("timeout")),
        )
        return func(*args, endpoint=endpoint, **kwargs)

    return with_options(wrapper, _OPTIONS)
