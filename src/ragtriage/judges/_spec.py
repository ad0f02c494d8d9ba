"""What a judge is (its spec, stored with every label) and what it answers (verdicts)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..schemas import ClaimVerdict, FactVerdict, Labeller, Outcome


@dataclass(frozen=True)
class JudgeSpec:
    """The identity of a judge: everything that changes its answers, and nothing else."""

    model: str
    """Model name as the endpoint knows it (or the baseline's name)."""
    endpoint_kind: str
    """What serves it: `openai-compatible`, `llama.cpp`, `vllm`, `ollama`, `lexical` ..."""
    prompt_version: str
    """Version of the prompt templates (or of the baseline's rules)."""
    temperature: float | None = 0.0
    """Sampling temperature (0 for a judge)."""
    seed: int | None = 0
    """Sampling seed sent with every request."""
    max_tokens: int = 512
    """Upper bound on generated tokens per call."""
    response_format: str = "json_object"
    """`json_schema` sends each task's reply schema (constrained output, in the form the
    endpoint kind understands), `json_object` asks for any JSON object, `none` sends no
    response format (see `judges.response_format_body`)."""

    def labeller(self) -> Labeller:
        """The label provenance stored with every label this judge makes."""
        return Labeller(
            kind="judge",
            name=self.model,
            prompt_version=self.prompt_version,
            endpoint_kind=self.endpoint_kind,
            temperature=self.temperature,
            seed=self.seed,
        )

    def cache_identity(self) -> dict[str, object]:
        """The fields that key the cache (the base URL is left out on purpose: same model,
        same prompt, same inputs give the same answer wherever it is served)."""
        return {
            "model": self.model,
            "endpoint_kind": self.endpoint_kind,
            "prompt_version": self.prompt_version,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "response_format": self.response_format,
        }


@dataclass(frozen=True)
class Passage:
    """One context item as the judge sees it."""

    id: str
    """Context item ID."""
    text: str
    """Its text (from the run, else from the snapshot)."""


@dataclass(frozen=True)
class ExtractedClaim:
    """A claim found in an answer."""

    text: str
    """The claim."""
    citations: tuple[str, ...] = ()
    """IDs the answer cites for it."""


@dataclass(frozen=True)
class SupportVerdict:
    """A judge's answer on one claim; `cannot_judge` always carries a reason."""

    verdict: ClaimVerdict
    """`supported`, `unsupported` or `cannot_judge`."""
    supported_by: tuple[str, ...] = ()
    """Supporting passage IDs (non-empty exactly when supported)."""
    reason: str | None = None
    """Why; for `cannot_judge` this says what went wrong (parse error, transport failure)."""


@dataclass(frozen=True)
class CoverageVerdict:
    """A judge's answer on one reference fact."""

    verdict: FactVerdict
    """`covered`, `not_covered` or `cannot_judge`."""
    reason: str | None = None
    """Why; always set for `cannot_judge`."""


@dataclass(frozen=True)
class ClaimsFound:
    """The result of claim extraction: claims, or `None` with the reason it failed."""

    claims: tuple[ExtractedClaim, ...] | None
    """The claims, in answer order; `None` when extraction failed."""
    reason: str | None = None
    """Why extraction failed, when it did."""


@dataclass(frozen=True)
class OutcomeFound:
    """The result of refusal/clarification detection."""

    outcome: Outcome | None
    """`answered`, `refused` or `clarified`; `None` when detection failed."""
    reason: str | None = None
    """Why (or why detection failed)."""


@dataclass(frozen=True)
class CallStats:
    """Counts of one judging session: requests, cache use, tokens and cost."""

    calls: int = 0
    """Judge calls asked for (cache hits included)."""
    requests: int = 0
    """HTTP requests sent (retries included)."""
    cache_hits: int = 0
    """Calls answered from the cache."""
    retries: int = 0
    """Requests that were retries."""
    failures: int = 0
    """Calls that ended without a usable answer (transport or parse)."""
    prompt_tokens: int = 0
    """Input tokens reported by the endpoint (not counting cache hits)."""
    completion_tokens: int = 0
    """Output tokens reported by the endpoint (not counting cache hits)."""
    unreported: int = 0
    """Replies (not cache hits) without both token counts: the totals leave them out."""
    cost_usd: float | None = None
    """Cost from the given prices; `None` when no price was given or `unreported` > 0."""
    by_task: dict[str, int] = field(default_factory=dict)
    """Calls per task (`outcome`, `claims`, `support`, `coverage`)."""
    first_failure: str | None = None
    """Why the first failed call failed (the reason a session where every call failed gives)."""
    stopped: str | None = None
    """Why the session stopped early (the endpoint refused key, model or URL), or None."""

    @property
    def answered(self) -> int:
        """Calls that gave a usable answer."""
        return self.calls - self.failures


CALL_COUNTS = (
    "calls", "requests", "cache_hits", "retries", "failures", "prompt_tokens", "completion_tokens",
    "unreported",
)
"""The counts of `CallStats`: what a client tallies (`ChatClient.counters`), shards add up."""
