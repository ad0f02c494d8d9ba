"""The judge interface, and the judge that asks an LLM over an OpenAI-compatible endpoint."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ._client import ChatClient, EndpointError
from ._parse import parse_claims, parse_coverage, parse_outcome, parse_support
from ._prompts import PromptSet, Task
from ._spec import (
    CALL_COUNTS,
    CallStats,
    ClaimsFound,
    CoverageVerdict,
    JudgeSpec,
    OutcomeFound,
    Passage,
    SupportVerdict,
)


class Judge(Protocol):
    """What the runner needs from a judge: four tasks, a spec and the session's counts."""

    spec: JudgeSpec

    async def detect_outcome(self, question: str, answer: str) -> OutcomeFound:
        """Answered, refused or asked for clarification."""
        ...

    async def extract_claims(self, question: str, answer: str) -> ClaimsFound:
        """The answer's atomic claims with their citations."""
        ...

    async def judge_support(self, claim: str, passages: Sequence[Passage]) -> SupportVerdict:
        """Whether the passages support the claim."""
        ...

    async def judge_coverage(self, question: str, fact: str | None, answer: str) -> CoverageVerdict:
        """Whether the answer states the reference fact."""
        ...

    def stats(self) -> CallStats:
        """Counts so far."""
        ...


def render_passages(passages: Sequence[Passage]) -> str:
    """Passages as the prompt shows them: `[ID] text`, one per paragraph."""
    return "\n\n".join(f"[{p.id}] {' '.join(p.text.split())}" for p in passages) or "(no passages)"


class LLMJudge:
    """A judge that asks a chat model; every reply goes through the strict parser."""

    def __init__(self, client: ChatClient, prompts: PromptSet) -> None:
        self.client = client
        self.prompts = prompts
        self.spec = client.spec
        self._by_task: dict[str, int] = {}
        self._parse_failures = 0
        self._first_failure: str | None = None

    async def _ask(self, task: Task, **values: str) -> tuple[str | None, str | None, str | None]:
        self._by_task[task] = self._by_task.get(task, 0) + 1
        try:
            reply = await self.client.complete(task, self.prompts.messages(task, **values))
        except EndpointError as exc:
            # The session stops (no more requests); this item ends as not judged, and the
            # labels finished so far are kept.
            self._parse_failures += 1
            reason = f"not judged: the session stopped: {exc}"
            self._first_failure = self._first_failure or reason
            return None, reason, None
        if reply.error is not None:
            self._first_failure = self._first_failure or reply.error
        return reply.content, reply.error, reply.finish_reason

    def _count(self, rejected: bool, text: str | None, reason: str | None) -> None:
        """Count a reply that arrived but did not parse (transport failures count in the client)."""
        if rejected and text is not None:
            self._parse_failures += 1
            self._first_failure = self._first_failure or reason

    async def detect_outcome(self, question: str, answer: str) -> OutcomeFound:
        """Answered, refused or asked for clarification."""
        text, error, finish = await self._ask("outcome", question=question, answer=answer)
        found = parse_outcome(text, error, finish)
        self._count(found.outcome is None, text, found.reason)
        return found

    async def extract_claims(self, question: str, answer: str) -> ClaimsFound:
        """The answer's atomic claims with their citations."""
        text, error, finish = await self._ask("claims", question=question, answer=answer)
        found = parse_claims(text, error, finish)
        self._count(found.claims is None, text, found.reason)
        return found

    async def judge_support(self, claim: str, passages: Sequence[Passage]) -> SupportVerdict:
        """Whether the passages support the claim."""
        passages_text = render_passages(passages)
        text, error, finish = await self._ask("support", passages=passages_text, claim=claim)
        verdict = parse_support(text, [p.id for p in passages], error, finish)
        self._count(_is_rejection(verdict), text, verdict.reason)
        return verdict

    async def judge_coverage(self, question: str, fact: str | None, answer: str) -> CoverageVerdict:
        """Whether the answer states the reference fact (a fact without text cannot be judged)."""
        if fact is None:
            return CoverageVerdict("cannot_judge", "the reference fact has no text to compare with")
        values = {"question": question, "fact": fact, "answer": answer}
        text, error, finish = await self._ask("coverage", **values)
        verdict = parse_coverage(text, error, finish)
        self._count(_is_rejection(verdict), text, verdict.reason)
        return verdict

    def stats(self) -> CallStats:
        """Counts so far (tokens as reported by the endpoint; cache hits cost nothing)."""
        counts = {name: getattr(self.client.counters, name) for name in CALL_COUNTS}
        counts["failures"] += self._parse_failures
        return CallStats(
            **counts,
            by_task=dict(sorted(self._by_task.items())),
            first_failure=self._first_failure,
            stopped=self.client.stopped,
        )


def _is_rejection(verdict: SupportVerdict | CoverageVerdict) -> bool:
    reason = verdict.reason or ""
    return reason.startswith(
        ("unparseable judge answer", "judge answer rejected", "output truncated")
    )
