"""Putting a judge session together: client + cache + prompts, the dry-run estimate, and cost."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import RagtriageError, counted
from ..loading import Dataset
from ..paths import PathArg, as_optional_path
from ._cache import CachedReply, ReplyCache, cache_key
from ._client import ChatClient, ClientOptions
from ._lexical_judge import split_claims
from ._llm import LLMJudge, render_passages
from ._parse import parse_claims, parse_outcome
from ._prompts import Message, PromptSet, Task, load_prompts, message_tokens
from ._runner import JudgeResult, Progress, judge_dataset, judge_dataset_async
from ._spec import (
    CallStats,
    ClaimsFound,
    CoverageVerdict,
    JudgeSpec,
    OutcomeFound,
    Passage,
    SupportVerdict,
)


@dataclass(frozen=True)
class Prices:
    """Prices per 1,000 tokens, in US dollars."""

    input_per_1k: float | None = None
    """Per 1,000 input tokens."""
    output_per_1k: float | None = None
    """Per 1,000 output tokens."""

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """The cost of these tokens; None when no price was given."""
        if self.input_per_1k is None and self.output_per_1k is None:
            return None
        return round(
            prompt_tokens / 1000 * (self.input_per_1k or 0.0)
            + completion_tokens / 1000 * (self.output_per_1k or 0.0),
            6,
        )


@dataclass(frozen=True)
class Estimate:
    """What a run of the judge would cost, without calling anything."""

    calls: dict[str, int]
    """Calls per task."""
    cached_calls: int
    """Calls the cache would answer (for calls whose prompt is known in advance)."""
    input_tokens: int
    """Estimated input tokens of the calls not in the cache."""
    output_tokens_max: int
    """Upper bound on output tokens (max_tokens per call not in the cache)."""
    cost_usd_max: float | None
    """Upper bound on cost from the given prices."""
    estimated_claims: int
    """Claims counted by splitting answers into sentences, for answers not yet extracted."""


class _Planner:
    """A judge that sends nothing: it keeps the messages of every call a session would make
    and whether the cache answers it, reading a cached outcome or claims reply as the session
    would; without one, it takes the answer as answered and its sentences as its claims (the
    real extraction decides)."""

    def __init__(self, spec: JudgeSpec, prompts: PromptSet, cache: ReplyCache | None) -> None:
        self.spec = spec
        self.prompts = prompts
        self.cache = cache
        self.planned: list[tuple[Task, list[Message], bool]] = []
        self.guessed = 0
        """Claims counted by splitting answers into sentences."""

    def _plan(self, task: Task, **values: str) -> CachedReply | None:
        messages = self.prompts.messages(task, **values)
        hit = None if self.cache is None else self.cache.get(cache_key(self.spec, task, messages))
        self.planned.append((task, messages, hit is not None))
        return hit

    async def detect_outcome(self, question: str, answer: str) -> OutcomeFound:
        hit = self._plan("outcome", question=question, answer=answer)
        if hit is not None:
            return parse_outcome(hit.content, None, hit.finish_reason)
        return OutcomeFound("answered")

    async def extract_claims(self, question: str, answer: str) -> ClaimsFound:
        hit = self._plan("claims", question=question, answer=answer)
        if hit is not None:
            return parse_claims(hit.content, None, hit.finish_reason)
        found = split_claims(answer)
        self.guessed += len(found)
        return ClaimsFound(found)

    async def judge_support(self, claim: str, passages: Sequence[Passage]) -> SupportVerdict:
        self._plan("support", passages=render_passages(passages), claim=claim)
        return SupportVerdict("cannot_judge")

    async def judge_coverage(self, question: str, fact: str | None, answer: str) -> CoverageVerdict:
        if fact is not None:
            self._plan("coverage", question=question, fact=fact, answer=answer)
        return CoverageVerdict("cannot_judge")

    def stats(self) -> CallStats:
        return CallStats()


def estimate(
    dataset: Dataset,
    spec: JudgeSpec,
    *,
    k: int | None = None,
    cache_path: PathArg | None = None,
    prices: Prices = Prices(),
) -> Estimate:
    """Count calls and tokens a judge session would need; outcome and claims replies in the
    cache are read as the session reads them, other unextracted answers' claims are estimated
    by splitting them into sentences (the extraction call itself decides)."""
    cache_path = as_optional_path(cache_path)
    cache = ReplyCache(cache_path) if cache_path is not None and cache_path.exists() else None
    planner = _Planner(spec, load_prompts(spec.prompt_version), cache)
    try:
        judge_dataset(dataset, planner, k=k)
    finally:
        if cache is not None:
            cache.close()
    calls: dict[str, int] = {}
    cached = tokens_in = tokens_out = 0
    for task, messages, hit in planner.planned:
        calls[task] = calls.get(task, 0) + 1
        if hit:
            cached += 1
            continue
        tokens_in += message_tokens(messages)
        tokens_out += spec.max_tokens
    return Estimate(
        dict(sorted(calls.items())),
        cached,
        tokens_in,
        tokens_out,
        prices.cost(tokens_in, tokens_out),
        planner.guessed,
    )


async def run_llm_judge(
    dataset: Dataset,
    spec: JudgeSpec,
    options: ClientOptions,
    *,
    k: int | None = None,
    cache_path: PathArg | None = None,
    prices: Prices = Prices(),
    progress: Progress | None = None,
) -> JudgeResult:
    """Judge a dataset with an LLM over an OpenAI-compatible endpoint (cache optional); the
    result's cost is worked out from its token counts at `prices`."""
    cache_path = as_optional_path(cache_path)
    prompts = load_prompts(spec.prompt_version)
    cache = ReplyCache(cache_path) if cache_path is not None else None
    try:
        async with ChatClient(spec, options, cache) as client:
            result = await judge_dataset_async(
                dataset, LLMJudge(client, prompts), k=k, progress=progress
            )
    finally:
        if cache is not None:
            cache.close()
    s = result.stats
    cost = None if s.unreported else prices.cost(s.prompt_tokens, s.completion_tokens)
    return dataclasses.replace(result, stats=dataclasses.replace(result.stats, cost_usd=cost))


class JudgeFailed(RagtriageError):
    """Every judge call failed: there are no labels to write (the message says why)."""


def check_answered(result: JudgeResult, base_url: str) -> None:
    """Raise `JudgeFailed` when calls were made and none gave a usable answer (no server,
    wrong URL, a server that answers garbage), or calls failed and no label but
    `cannot_judge` was made (every support and coverage call failed): a labels file of
    nothing but `cannot_judge` would look like a finished run."""
    s = result.stats
    verdicts = [
        entry.label.verdict
        for run in result.runs
        for labels in (run.labels.claim_labels, run.labels.fact_labels)
        for entry in labels
    ]
    unlabelled = s.failures > 0 and bool(verdicts) and set(verdicts) == {"cannot_judge"}
    if s.calls == 0 or (s.answered > 0 and not unlabelled):
        return
    what = f"every judge call failed ({s.failures} of {s.calls})"
    if s.answered > 0:
        what = (
            f"no label but cannot_judge ({len(verdicts)} of {counted(len(verdicts), 'label')}; "
            f"{s.failures} of {s.calls} judge calls failed)"
        )
    why = s.stopped or s.first_failure or "no reason recorded"
    raise JudgeFailed(
        f"{what}, no labels written; first failure: {why}; check that a judge model answers at "
        f"{base_url} (--base-url, --model)"
    )
