"""An async client for OpenAI-compatible chat endpoints: concurrency limit, retries, cache."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .._optional import extra_module, require_extra
from ..endpoint import (
    CONCURRENCY_RANGE,
    DEFAULT_MAX_REPLY_BYTES,
    MAX_REPLY_BYTES_RANGE,
    MAX_RETRIES_RANGE,
    RETRY_DELAY_RANGE,
    TIMEOUT_RANGE,
)
from ..errors import InputError, RagtriageError, counted, range_problems
from ._cache import CachedReply, ReplyCache, cache_key
from ._formats import response_format_body
from ._reply_json import reply_json
from ._spec import JudgeSpec

_FEATURE = "calling an OpenAI-compatible endpoint"
if TYPE_CHECKING:
    import httpx
else:  # imported at first use: httpx is the optional extra ragtriage[judge]
    httpx = extra_module("httpx", "judge", _FEATURE)

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
"""HTTP statuses worth retrying: rate limits, timeouts and server errors."""
FATAL_STATUS = frozenset({401, 403, 404})
"""HTTP statuses that mean the configuration is wrong: the whole session stops."""
_MAX_RETRY_AFTER = 30.0


class EndpointError(RagtriageError):
    """The endpoint refused the configuration (bad key, unknown model or URL): nothing to retry."""


@dataclass(frozen=True)
class Reply:
    """The outcome of one call: content, or `None` with the reason after every retry failed."""

    content: str | None
    """The message content."""
    finish_reason: str | None
    """Why generation stopped."""
    error: str | None
    """Why there is no content."""
    prompt_tokens: int | None = 0
    """Input tokens the reply took, as reported (a cache hit's as first reported; 0 for a
    failure; None when the endpoint did not report them)."""
    completion_tokens: int | None = 0
    """Output tokens the reply took, as reported (None: not reported)."""
    cached: bool = False
    """Answered from the cache."""


@dataclass(frozen=True)
class ClientOptions:
    """How to reach the endpoint and how hard to try."""

    base_url: str
    """Base URL including the API prefix, e.g. `http://127.0.0.1:8080/v1`."""
    api_key: str | None = None
    """Bearer token, if the endpoint needs one."""
    concurrency: int = 8
    """Requests in flight at once."""
    max_retries: int = 3
    """Retries after the first attempt (so up to max_retries + 1 requests per call)."""
    timeout: float = 60.0
    """Seconds per request, in total (connect, send, every read): a server that trickles
    bytes cannot keep a request alive past it."""
    backoff: float = 0.5
    """First retry delay in seconds; doubles on every further retry."""
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    """Largest reply body read; a bigger reply is a failed call (not retried, not cached)."""

    def __post_init__(self) -> None:
        # Refused here, for every caller, with the command line's option names and ranges:
        # max_retries=-1 would otherwise send no request at all and fail every call.
        problems = range_problems(
            ("--concurrency", self.concurrency, CONCURRENCY_RANGE),
            ("--max-retries", self.max_retries, MAX_RETRIES_RANGE),
            ("--timeout", self.timeout, TIMEOUT_RANGE),
            ("--retry-delay", self.backoff, RETRY_DELAY_RANGE),
            ("--max-reply-bytes", self.max_reply_bytes, MAX_REPLY_BYTES_RANGE),
        )
        if problems:
            raise InputError(problems)


class _Counters:
    """Mutable tallies owned by one client (read through `ChatClient.counters`)."""

    def __init__(self) -> None:
        self.calls = 0
        self.requests = 0
        self.cache_hits = 0
        self.retries = 0
        self.failures = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.unreported = 0


_MAX_TOKENS_REPORTED = 10**12
"""Largest token count believed from a reply's `usage` (a bigger one is a malformed reply)."""


def _field(value: Any, key: str, kind: type, where: str) -> Any:
    if not isinstance(value, dict):
        raise TypeError(f"{where} is not an object")
    found = value.get(key)
    if not isinstance(found, kind):
        raise TypeError(f"{where}.{key} is {type(found).__name__}, not {kind.__name__}")
    return found


def _tokens(usage: dict[str, Any], key: str) -> int | None:
    value = usage.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"usage.{key} is {type(value).__name__}, not an integer")
    if not 0 <= value <= _MAX_TOKENS_REPORTED:
        raise ValueError(f"usage.{key} is {value}, outside 0..{_MAX_TOKENS_REPORTED}")
    return value


def _envelope(body: bytes) -> tuple[str, str | None, int | None, int | None]:
    """(content, finish_reason, prompt tokens, completion tokens; None when not reported) of a
    chat completion body; anything odd (duplicate keys, deep nesting, `usage` that is not an
    object, a token count that is not a small integer) raises ValueError or TypeError."""
    data: Any = reply_json(body.decode("utf-8"))
    choices = _field(data, "choices", list, "body")
    if not choices:
        raise ValueError("body.choices is empty")
    message = _field(choices[0], "message", dict, "choices[0]")
    content = _field(message, "content", str, "choices[0].message")
    finish = choices[0].get("finish_reason")
    usage = data.get("usage")
    if usage is None:
        usage = {}
    elif not isinstance(usage, dict):
        raise TypeError(f"body.usage is {type(usage).__name__}, not an object")
    return (
        content,
        finish if isinstance(finish, str) else None,
        _tokens(usage, "prompt_tokens"),
        _tokens(usage, "completion_tokens"),
    )


class _TooLarge(Exception):
    """The reply passed the size cap."""


async def _read_capped(response: httpx.Response, cap: int) -> bytes:
    """The body, or `_TooLarge` as soon as more than `cap` bytes are announced or arrive."""
    declared = response.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and len(declared) < 20 and int(declared) > cap:
        raise _TooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > cap:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


class ChatClient:
    """Sends chat requests for one judge spec; use as an async context manager."""

    def __init__(
        self, spec: JudgeSpec, options: ClientOptions, cache: ReplyCache | None = None
    ) -> None:
        require_extra("judge", _FEATURE)
        self.spec = spec
        self.options = options
        self.cache = cache
        self.counters = _Counters()
        self._semaphore = asyncio.Semaphore(max(1, options.concurrency))
        self._inflight: dict[str, asyncio.Future[Reply]] = {}
        headers = {"Content-Type": "application/json"}
        if options.api_key:
            headers["Authorization"] = f"Bearer {options.api_key}"
        limits = httpx.Limits(max_connections=max(1, options.concurrency))
        self._http = httpx.AsyncClient(
            headers=headers, timeout=options.timeout, limits=limits, trust_env=False
        )
        self._url = options.base_url.rstrip("/") + "/chat/completions"
        self._stopped: str | None = None

    @property
    def stopped(self) -> str | None:
        """Why the session stopped (the endpoint refused the configuration), or None."""
        return self._stopped

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()

    def _body(self, task: str, messages: list[dict[str, str]]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.spec.model,
            "messages": messages,
            "max_tokens": self.spec.max_tokens,
            "stream": False,
        }
        if self.spec.temperature is not None:
            body["temperature"] = self.spec.temperature
        if self.spec.seed is not None:
            body["seed"] = self.spec.seed
        response_format = response_format_body(self.spec, task)
        if response_format is not None:
            body["response_format"] = response_format
        return body

    async def complete(self, task: str, messages: list[dict[str, str]]) -> Reply:
        """One judge call: from the cache when possible, else with retries; never raises for
        transport trouble (the reply then carries the reason), only for a fatal status."""
        self.counters.calls += 1
        key = cache_key(self.spec, task, messages)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.counters.cache_hits += 1
                tokens = hit.prompt_tokens, hit.completion_tokens
                return Reply(hit.content, hit.finish_reason, None, *tokens, cached=True)
        if self._stopped is not None:
            # The endpoint refused the key, model or URL: no further request is sent.
            raise EndpointError(self._stopped)
        pending = self._inflight.get(key)
        if pending is not None:
            # The same request is already on its way (e.g. two runs with the same answer and
            # context): share its reply instead of paying twice.
            self.counters.cache_hits += 1
            shared = await asyncio.shield(pending)
            if shared.error is not None:
                self.counters.failures += 1
            return replace(shared, cached=True)
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            reply = await self._send(key, task, messages)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved here, so an unshared failure is not logged twice
            raise
        else:
            future.set_result(reply)
            return reply
        finally:
            del self._inflight[key]

    async def _send(self, key: str, task: str, messages: list[dict[str, str]]) -> Reply:
        body = self._body(task, messages)
        last_error = "no attempt made"
        attempts = self.options.max_retries + 1
        for attempt in range(attempts):
            if attempt:
                self.counters.retries += 1
            delay: float | None = None
            async with self._semaphore:
                if self._stopped is not None:
                    raise EndpointError(self._stopped)
                self.counters.requests += 1
                try:
                    status, headers, payload = await self._post(body)
                except (TimeoutError, httpx.TimeoutException):
                    last_error = f"timed out after {self.options.timeout:g} s"
                except httpx.HTTPError as exc:  # transport, bad content encoding, redirects
                    last_error = f"transport error: {type(exc).__name__}: {exc}"
                except _TooLarge:
                    # The same request would get the same reply: neither retried nor cached.
                    self.counters.failures += 1
                    return Reply(
                        None,
                        None,
                        f"reply larger than {self.options.max_reply_bytes} bytes "
                        "(--max-reply-bytes); not read, not cached",
                    )
                else:
                    shown = payload[:200].decode("utf-8", "replace")
                    if status in FATAL_STATUS:
                        self._stopped = (
                            f"{self._url} answered HTTP {status}: {shown!r} "
                            "(check --base-url, --model and --api-key-env)"
                        )
                        raise EndpointError(self._stopped)
                    if status == 200:
                        try:
                            content, finish, p_tok, c_tok = _envelope(payload)
                        except (ValueError, TypeError) as exc:
                            last_error = f"malformed response body ({type(exc).__name__}: {exc})"
                        else:
                            self.counters.unreported += p_tok is None or c_tok is None
                            self.counters.prompt_tokens += p_tok or 0
                            self.counters.completion_tokens += c_tok or 0
                            stored = CachedReply(content, finish, p_tok, c_tok)
                            if self.cache is not None:
                                self.cache.put(key, task, stored)
                            return Reply(content, finish, None, p_tok, c_tok)
                    elif status in RETRY_STATUS:
                        last_error = f"HTTP {status}"
                        delay = _retry_after(headers.get("retry-after"))
                    else:
                        self.counters.failures += 1
                        return Reply(None, None, f"HTTP {status}: {shown!r} (not retried)")
            if attempt + 1 < attempts:
                await asyncio.sleep(
                    delay if delay is not None else self.options.backoff * 2**attempt
                )
        self.counters.failures += 1
        return Reply(None, None, f"{last_error} (after {counted(attempts, 'attempt')})")

    async def _post(self, body: dict[str, Any]) -> tuple[int, httpx.Headers, bytes]:
        """One request under a total deadline, its body read up to the size cap."""
        async with asyncio.timeout(self.options.timeout):
            async with self._http.stream("POST", self._url, json=body) as response:
                payload = await _read_capped(response, self.options.max_reply_bytes)
                return response.status_code, response.headers, payload


def _retry_after(value: str | None) -> float | None:
    """The server's Retry-After in seconds (capped), when it gives a number."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    if not math.isfinite(seconds):
        return None
    return min(max(seconds, 0.0), _MAX_RETRY_AFTER)
