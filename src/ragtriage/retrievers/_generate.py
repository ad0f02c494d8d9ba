"""The optional generation stage: send each question's final context to an OpenAI-compatible
chat endpoint (through the judges' client) and record the answer, outcome, tokens and latency.

Claims are not extracted here (`claims` stays null): that is the judge's or a reviewer's job,
so the system under test never labels itself.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import RagtriageError
from ..schemas import Component, QuestionResult, Usage

GENERATION_PROMPT_VERSION = "rag-answer-v1"
"""Version of the answer prompt below; recorded as the run's `prompt_version`."""

REFUSAL_MARKER = "INSUFFICIENT_EVIDENCE"
"""What the prompt asks the model to reply when the passages do not answer the question."""

_SYSTEM = (
    "You answer questions for a knowledge base. Use only the passages given. After each "
    "statement, cite the passage IDs that support it in square brackets, e.g. [doc-1]. If the "
    f"passages do not contain the answer, reply with exactly {REFUSAL_MARKER} and nothing else. "
    "Answer in the language of the question."
)


@dataclass(frozen=True)
class GenerationConfig:
    """Where and how answers are generated; recorded in the run's provenance."""

    base_url: str
    """OpenAI-compatible API base, e.g. `http://127.0.0.1:8080/v1`."""
    model: str
    """Model name as the endpoint knows it."""
    api_key: str | None = None
    """Bearer token, if needed (never written to the run)."""
    temperature: float = 0.0
    """Sampling temperature."""
    seed: int | None = 0
    """Sampling seed sent with each request."""
    max_tokens: int = 256
    """Upper bound on the answer's tokens."""
    concurrency: int = 2
    """Requests in flight at once."""
    timeout: float = 120.0
    """Seconds per request."""

    def component(self) -> Component:
        """The generator as recorded in provenance (no key, no URL: they do not change answers)."""
        settings: dict[str, str | int | float | bool] = {
            "endpoint_kind": "openai-compatible",
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "refusal_marker": REFUSAL_MARKER,
        }
        if self.seed is not None:
            settings["seed"] = self.seed
        return Component(name=self.model, settings=settings)


def answer_messages(question: str, passages: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """The chat messages for one question: the rules, then the passages with their IDs."""
    blocks = "\n\n".join(f"[{pid}]\n{text}" for pid, text in passages)
    user = f"Passages:\n\n{blocks or '(none)'}\n\nQuestion: {question}"
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


@dataclass(frozen=True)
class Generated:
    """One question's generation outcome."""

    answer: str | None
    """The reply, or `None` when the call failed after its retries."""
    refused: bool
    """True when the reply is the refusal marker."""
    prompt_tokens: int | None
    """Tokens sent (as reported; None when the endpoint did not report them)."""
    completion_tokens: int | None
    """Tokens generated (as reported; None when not reported)."""
    seconds: float
    """Wall time of the call."""
    error: str | None = None
    """Why the call failed, when it did."""


async def _generate_all(
    config: GenerationConfig, requests: Sequence[list[dict[str, str]]], cache_path: Path | None
) -> list[Generated]:
    from ..judges import ChatClient, ClientOptions, JudgeSpec, ReplyCache

    spec = JudgeSpec(
        model=config.model,
        endpoint_kind="openai-compatible",
        prompt_version=GENERATION_PROMPT_VERSION,
        temperature=config.temperature,
        seed=config.seed,
        max_tokens=config.max_tokens,
        response_format="none",
    )
    options = ClientOptions(
        base_url=config.base_url,
        api_key=config.api_key,
        concurrency=config.concurrency,
        timeout=config.timeout,
    )
    cache = ReplyCache(cache_path) if cache_path is not None else None

    async def one(client: ChatClient, messages: list[dict[str, str]]) -> Generated:
        started = time.perf_counter()
        reply = await client.complete("generate-answer", messages)
        elapsed = time.perf_counter() - started
        text = reply.content.strip() if reply.content is not None else None
        refused = text is not None and text.strip(" .") == REFUSAL_MARKER
        return Generated(
            text or None,
            refused,
            reply.prompt_tokens,
            reply.completion_tokens,
            elapsed,
            reply.error,
        )

    async with ChatClient(spec, options, cache) as client:
        return list(await asyncio.gather(*(one(client, m) for m in requests)))


def generate(
    config: GenerationConfig,
    questions: Sequence[str],
    results: Sequence[QuestionResult],
    cache_path: Path | None = None,
) -> list[QuestionResult]:
    """Each result with its answer, outcome, usage and `generation` latency added (new objects).

    A call that failed after its retries leaves answer and outcome null for that question
    (scored as retrieval-only, not as a wrong answer); the count is in the provenance note.
    When every call failed, `RagtriageError` says why (nothing to write).
    """
    requests = [
        answer_messages(text, [(item.id, item.text or "") for item in result.context or []])
        for text, result in zip(questions, results, strict=True)
    ]
    generated = asyncio.run(_generate_all(config, requests, cache_path))
    if generated and all(gen.answer is None for gen in generated):
        # as the judge refuses: a run of nothing but null answers would look like a finished one
        raise RagtriageError(
            f"every generation call failed ({len(generated)} of {len(generated)}), no run "
            f"written; first failure: {generated[0].error or 'an empty reply'}; check that a "
            f"model answers at {config.base_url} (--base-url, --model)"
        )
    out = []
    for result, gen in zip(results, generated, strict=True):
        stages = {**result.stage_latency_ms, "generation": round(gen.seconds * 1000, 3)}
        update: dict[str, object] = {
            "stage_latency_ms": dict(sorted(stages.items())),
            "latency_ms": round((result.latency_ms or 0.0) + gen.seconds * 1000, 3),
        }
        if gen.answer is not None:
            sent, made = gen.prompt_tokens, gen.completion_tokens
            update.update(
                answer=gen.answer,
                outcome="refused" if gen.refused else "answered",
                usage=None if sent is None or made is None  # not reported: no usage, not zeros
                else Usage(prompt_tokens=sent, completion_tokens=made),
            )
        out.append(result.model_copy(update=update))
    return out


def generation_failures(results: Sequence[QuestionResult]) -> int:
    """Results whose generation call failed (a generation latency but no answer)."""
    return sum(1 for r in results if "generation" in r.stage_latency_ms and r.answer is None)
