"""Putting a judge session together: client + cache + prompts, the dry-run estimate, and cost."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..errors import RagtriageError
from ..loading import Dataset, SnapshotIndex
from ..paths import PathArg, as_optional_path
from ._cache import ReplyCache, cache_key
from ._client import ChatClient, ClientOptions
from ._lexical_judge import split_claims
from ._llm import LLMJudge, render_passages
from ._prompts import Message, load_prompts, message_tokens
from ._runner import (
    JudgeResult,
    Progress,
    check_judgeable,
    judge_dataset_async,
    passages_for,
)
from ._spec import JudgeSpec


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


def estimate(
    dataset: Dataset,
    spec: JudgeSpec,
    *,
    k: int | None = None,
    cache_path: PathArg | None = None,
    prices: Prices = Prices(),
) -> Estimate:
    """Count calls and tokens a judge session would need; claims of unextracted answers are
    estimated by splitting them into sentences (the extraction call itself decides)."""
    cache_path = as_optional_path(cache_path)
    ks = dataset.cutoffs(k)
    check_judgeable(dataset, ks)
    prompts = load_prompts(spec.prompt_version)
    index = SnapshotIndex.build(dataset.snapshot)
    questions = {q.id: q for q in dataset.evalset.questions}
    planned: list[tuple[str, list[Message]]] = []
    guessed = 0
    for run in dataset.runs:
        for res in run.results:
            if res.answer is None:
                continue
            q = questions[res.question_id]
            if res.outcome is None:
                planned.append(
                    ("outcome", prompts.messages("outcome", question=q.text, answer=res.answer))
                )
            if res.outcome not in (None, "answered"):
                continue
            if res.claims is None or (res.outcome is None and not res.claims):
                planned.append(
                    ("claims", prompts.messages("claims", question=q.text, answer=res.answer))
                )
                texts = [c.text for c in split_claims(res.answer)]
                guessed += len(texts)
            else:
                texts = [c.text for c in res.claims]
            shown = render_passages(passages_for(res, index, ks[run.name]))
            planned += [
                ("support", prompts.messages("support", passages=shown, claim=t)) for t in texts
            ]
            planned += [
                (
                    "coverage",
                    prompts.messages("coverage", question=q.text, fact=f.text, answer=res.answer),
                )
                for f in q.reference_facts
                if f.text is not None
            ]
    cache = ReplyCache(cache_path) if cache_path is not None and cache_path.exists() else None
    calls: dict[str, int] = {}
    cached = tokens_in = tokens_out = 0
    for task, messages in planned:
        calls[task] = calls.get(task, 0) + 1
        if cache is not None and cache.get(cache_key(spec, task, messages)) is not None:
            cached += 1
            continue
        tokens_in += message_tokens(messages)
        tokens_out += spec.max_tokens
    if cache is not None:
        cache.close()
    return Estimate(
        dict(sorted(calls.items())),
        cached,
        tokens_in,
        tokens_out,
        prices.cost(tokens_in, tokens_out),
        guessed,
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
    cost = prices.cost(result.stats.prompt_tokens, result.stats.completion_tokens)
    return dataclasses.replace(result, stats=dataclasses.replace(result.stats, cost_usd=cost))


class JudgeFailed(RagtriageError):
    """Every judge call failed: there are no labels to write (the message says why)."""


def check_answered(result: JudgeResult, base_url: str) -> None:
    """Raise `JudgeFailed` when calls were made and none gave a usable answer (no server,
    wrong URL, a server that answers garbage): a labels file of nothing but `cannot_judge`
    would look like a finished run."""
    s = result.stats
    if s.calls == 0 or s.answered > 0:
        return
    why = s.stopped or s.first_failure or "no reason recorded"
    raise JudgeFailed(
        f"every judge call failed ({s.failures} of {s.calls}), no labels written; "
        f"first failure: {why}; check that a judge model answers at {base_url} "
        "(--base-url, --model)"
    )
