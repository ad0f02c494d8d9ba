"""An OpenAI-compatible endpoint as `judge` and `run` take it (one set of names and defaults)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from .errors import InputError, NumberRange, Problem, option_problem, range_problems

DEFAULT_MAX_TOKENS = 512
"""Output token limit per call: room for a judge's JSON verdict or a short answer."""
DEFAULT_CONCURRENCY = 4
"""Requests in flight: a local llama.cpp server keeps up; hosted APIs allow more."""
DEFAULT_TIMEOUT = 60.0
"""Seconds per request, in total."""
DEFAULT_MAX_REPLY_BYTES = 1 << 20
"""Largest reply body read (1 MiB): a judge verdict is a few hundred bytes."""
MAX_REPLY_BYTES_RANGE = NumberRange(1024, 64 << 20)
"""The range `--max-reply-bytes` accepts: 1 KiB to 64 MiB."""
MAX_TOKENS_RANGE = NumberRange(1, 1_000_000)
"""Output tokens per call (`--max-tokens`)."""
CONCURRENCY_RANGE = NumberRange(1, 256)
"""Requests in flight (`--concurrency`)."""
TIMEOUT_RANGE = NumberRange(0, 3600, integer=False, low_open=True)
"""Seconds per request, in total (`--timeout`)."""
MAX_RETRIES_RANGE = NumberRange(0, 20)
"""Retries after the first attempt (`--max-retries`): below 0 no request would be sent."""
RETRY_DELAY_RANGE = NumberRange(0, 600, integer=False)
"""First retry delay in seconds (`--retry-delay`)."""
PRICE_PER_1K_RANGE = NumberRange(0, 1_000_000, integer=False)
"""US dollars per 1,000 tokens (`--price-per-1k-input`, `--price-per-1k-output`)."""


@dataclass(frozen=True)
class Endpoint:
    """Where a model is served and how to call it (`--base-url`, `--model`, ...)."""

    base_url: str | None = None
    """OpenAI-compatible API base, e.g. `http://127.0.0.1:8080/v1` (None: not given)."""
    model: str | None = None
    """Model name as the endpoint knows it (None: not given)."""
    api_key_env: str | None = None
    """Environment variable holding the API key (None: no key is sent)."""
    max_tokens: int = DEFAULT_MAX_TOKENS
    """Output token limit per call."""
    concurrency: int = DEFAULT_CONCURRENCY
    """Requests in flight at once."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds per request."""

    @property
    def given(self) -> bool:
        """True when a base URL or a model was given."""
        return self.base_url is not None or self.model is not None

    def missing(self) -> list[str]:
        """The options still needed to call the endpoint (`--base-url`, `--model`)."""
        return [o for o, v in (("--base-url", self.base_url), ("--model", self.model)) if not v]

    def range_problems(self) -> list[Problem]:
        """A problem for each of `max_tokens`, `concurrency` and `timeout` outside the range
        its command-line option accepts."""
        return range_problems(
            ("--max-tokens", self.max_tokens, MAX_TOKENS_RANGE),
            ("--concurrency", self.concurrency, CONCURRENCY_RANGE),
            ("--timeout", self.timeout, TIMEOUT_RANGE),
        )

    def check_base_url(self) -> None:
        """`InputError` unless the base URL is an http(s) URL with a host (checked before any
        call: a `file://` or misspelt URL would otherwise fail every call one by one)."""
        if self.base_url is None:
            return
        scheme, host = "", None
        try:
            parts = urlsplit(self.base_url)
            scheme, host = parts.scheme, parts.hostname
            parts.port  # noqa: B018 (a port that is not a number raises here)
        except ValueError:
            host = None
        if scheme not in ("http", "https") or not host:
            expected = "an http:// or https:// URL with a host, e.g. http://127.0.0.1:8080/v1"
            raise InputError([option_problem("--base-url", expected, repr(self.base_url))])

    def api_key(self) -> str | None:
        """The key from `api_key_env`; `InputError` when that variable is unset or empty."""
        if not self.api_key_env:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            expected = f"an environment variable {self.api_key_env} with the key"
            raise InputError([option_problem("--api-key-env", expected, "unset or empty")])
        return key
