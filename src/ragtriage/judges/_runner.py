"""Judge a dataset's runs: outcome, claims, support per claim, coverage per reference fact."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from ..detectors import context_texts, label_context_hash
from ..errors import InputError, Problem
from ..loading import Dataset, SnapshotIndex
from ..paths import PathArg
from ..schemas import (
    Claim,
    ClaimLabel,
    ClaimLabelEntry,
    FactLabel,
    FactLabelEntry,
    LabelSet,
    Question,
    QuestionResult,
    Run,
    claim_ids,
)
from ..validation import check_dataset, load_checked, non_answer_problems
from ._lexical_judge import split_claims
from ._llm import Judge
from ._spec import (
    CallStats,
    CoverageVerdict,
    ExtractedClaim,
    JudgeSpec,
    Passage,
    SupportVerdict,
)


class Progress(Protocol):
    """Receives progress: the total grows as claims are found, then items complete."""

    def add_total(self, count: int) -> None:
        """More items are planned."""
        ...

    def advance(self) -> None:
        """One item is done."""
        ...


@dataclass(frozen=True)
class ItemNote:
    """Something about an item that is not a label: a failed detection or extraction, or a
    detected outcome the judge did not write (`failed` False)."""

    run: str
    """Run name."""
    question_id: str
    """The question."""
    task: str
    """`outcome` or `claims`."""
    reason: str
    """Why it failed, or what the judge did instead of what it found."""
    failed: bool = True
    """False for a note that is not a failure (the task gave an answer that was not used)."""


_OUTCOME_READ = {
    "refused": "a refusal",
    "clarified": "a request for clarification",
    "escalated": "an escalation",
}
"""How a note names a detected outcome other than `answered`."""


NO_CLAIMS_GIVEN = (
    "the run gives no claims for an answer written as answered; its claims are taken from "
    "the answer"
)
"""The note for an answer with `claims: []` that the judge writes as answered."""


def kept_answered_reason(
    outcome: str, judge_reason: str | None, kept: Sequence[tuple[str, str, str]]
) -> str:
    """The note for an answer the judge read as `outcome` but that keeps what the run gives
    and only an answer may carry (`kept`: `validation.non_answer_problems`)."""
    why = f" ({judge_reason})" if judge_reason else ""
    given = [
        "claims" if field == "claims" else f"covered reference facts ({found})"
        for field, _, found in kept
    ]
    return (
        f"the judge read this answer as {_OUTCOME_READ.get(outcome, outcome)}{why}; "
        f"kept as answered because the run gives {' and '.join(given)}"
    )


@dataclass(frozen=True)
class JudgedRun:
    """The judge's output for one run."""

    name: str
    """Run name."""
    labels: LabelSet
    """Every label made, one per claim and per reference fact judged (cannot_judge included)."""
    run: Run | None
    """The run with extracted claims and detected outcomes written in; None when unchanged."""
    notes: tuple[ItemNote, ...]
    """Extractions and detections that failed (the result keeps `claims: null`)."""


@dataclass(frozen=True)
class JudgeResult:
    """Everything one judging session produced."""

    spec: JudgeSpec
    """The judge."""
    runs: tuple[JudgedRun, ...]
    """Per run."""
    stats: CallStats
    """Calls, requests, cache hits, tokens."""


@dataclass(frozen=True)
class _Outcome:
    result: QuestionResult
    claim_labels: tuple[ClaimLabelEntry, ...]
    fact_labels: tuple[FactLabelEntry, ...]
    notes: tuple[ItemNote, ...]
    changed: bool


def check_judgeable(dataset: Dataset, ks: dict[str, int | None]) -> None:
    """Raise `InputError` for a dataset the judge cannot work on (unlabelled answers are fine,
    a missing outcome too: the judge detects it; and a question without a result, which has
    nothing to label)."""
    if problems := _judgeable_problems(dataset, ks):
        raise InputError(problems)


def _judgeable_problems(dataset: Dataset, ks: dict[str, int | None]) -> list[Problem]:
    return [
        p
        for p in check_dataset(dataset, ks, allow_unreviewed=True, allow_missing=True)
        if not (p.field == "outcome" and p.found == "nothing")
    ]


def load_judgeable(
    dataset: PathArg, snapshot: PathArg | None, runs: Sequence[PathArg], k: int | None
) -> Dataset:
    """The files as `loading.load_dataset` reads them, refused as `check_judgeable` refuses
    them (`validation.load_checked`), for the judge and for review sheets."""
    return load_checked(
        dataset, snapshot, runs, problems=lambda read: _judgeable_problems(read, read.cutoffs(k))
    )


def passages_for(
    result: QuestionResult, index: SnapshotIndex, k: int | None
) -> tuple[Passage, ...]:
    """The final context with its text: recorded text, else the snapshot's text for the ID."""
    pairs = context_texts(result, result.final_context(k), index)
    return tuple(Passage(pid, text) for pid, text in pairs)


def _fallback_claims(answer: str) -> list[Claim]:
    """The answer's sentences as claims, for an answer whose claims the judge could not
    extract (the whole answer when no sentence has a word)."""
    found = split_claims(answer) or (ExtractedClaim(" ".join(answer.split())),)
    return _as_claims(found)


async def _judge_result(
    judge: Judge,
    run_name: str,
    question: Question,
    result: QuestionResult,
    passages: tuple[Passage, ...],
    ctx_hash: str,
    progress: Progress | None,
) -> _Outcome:
    notes: list[ItemNote] = []

    def note(task: str, reason: str, failed: bool = True) -> None:
        notes.append(ItemNote(run_name, question.id, task, reason, failed))

    answer = result.answer
    if answer is None:
        return _Outcome(result, (), (), (), False)
    outcome, changed = result.outcome, False
    # Why this question's items are not judged, when the judge cannot tell what the answer is.
    unjudged: str | None = None
    if outcome is None:
        found = await _counted(progress, judge.detect_outcome(question.text, answer))
        if found.outcome is None:
            reason = found.reason or "no reason given"
            note("outcome", reason)
            # Written as answered so that the run file evaluates; every claim and fact of the
            # question is then `cannot_judge` with this reason, so nothing reads as a verdict.
            unjudged = f"outcome not detected ({reason}); written as answered, not judged"
            outcome, changed = "answered", True
        elif kept := non_answer_problems(result, found.outcome):
            # The run's claims and fact labels are its author's data: a refusal (or
            # clarification) with claims or covered facts would not evaluate, and dropping them
            # would lose them. The answer's claims and facts are judged as usual.
            reason = kept_answered_reason(found.outcome, found.reason, kept)
            note("outcome", reason, failed=False)
            outcome, changed = "answered", True
        else:
            outcome, changed = found.outcome, True
    if outcome != "answered":
        updated = result.model_copy(update={"outcome": outcome}) if changed else result
        return _Outcome(updated, (), (), tuple(notes), changed)
    claims: list[Claim] | None = list(result.claims) if result.claims is not None else None
    if claims == []:
        # `evaluate` refuses an answered result without claims (recorded as answered, or written
        # so by the judge): its claims come from the answer, as for `claims: null`.
        note("claims", NO_CLAIMS_GIVEN, failed=False)
        claims = None
    claim_reason: str | None = unjudged
    if claims is None and unjudged is None:
        extracted = await _counted(progress, judge.extract_claims(question.text, answer))
        if extracted.claims is None:
            reason = extracted.reason or "no reason given"
            note("claims", reason)
            claims = _fallback_claims(answer)
            claim_reason = f"claim extraction failed ({reason}); sentence of the answer, not judged"
        elif not extracted.claims:
            note("claims", "no claims extracted")
            claims = _fallback_claims(answer)
            claim_reason = "the judge extracted no claims; sentence of the answer, not judged"
        else:
            claims = _as_claims(extracted.claims)
            claim_reason = None
        changed = True
    elif claims is None:
        claims = _fallback_claims(answer)
    labeller = judge.spec.labeller()

    async def support(text: str) -> SupportVerdict:
        if claim_reason is not None:
            return SupportVerdict("cannot_judge", (), claim_reason)
        return await _counted(progress, judge.judge_support(text, passages))

    async def coverage(fact: str | None) -> CoverageVerdict:
        if unjudged is not None:
            return CoverageVerdict("cannot_judge", unjudged)
        return await _counted(progress, judge.judge_coverage(question.text, fact, answer))

    verdicts, covered = await asyncio.gather(
        asyncio.gather(*(support(c.text) for c in claims)),
        asyncio.gather(*(coverage(f.text) for f in question.reference_facts)),
    )
    claim_labels = tuple(
        ClaimLabelEntry(
            question_id=question.id,
            claim_id=claim_id,
            label=ClaimLabel(
                verdict=v.verdict,
                supported_by=list(v.supported_by),
                labeller=labeller,
                reason=v.reason,
                context_hash=ctx_hash,
            ),
        )
        for claim_id, v in zip(claim_ids(c.id for c in claims), verdicts, strict=True)
    )
    fact_labels = tuple(
        FactLabelEntry(
            question_id=question.id,
            label=FactLabel(
                fact_id=fact.id,
                verdict=c.verdict,
                labeller=labeller,
                reason=c.reason,
                context_hash=ctx_hash,
            ),
        )
        for fact, c in zip(question.reference_facts, covered, strict=True)
    )
    updated = result
    if changed:
        updated = result.model_copy(update={"outcome": outcome, "claims": claims})
    return _Outcome(updated, claim_labels, fact_labels, tuple(notes), changed)


T = TypeVar("T")


async def _counted(progress: Progress | None, call: Awaitable[T]) -> T:
    """One judge call, planned on `progress` before it starts and counted when it returns."""
    if progress is not None:
        progress.add_total(1)
    found = await call
    if progress is not None:
        progress.advance()
    return found


def _as_claims(extracted: Sequence[ExtractedClaim]) -> list[Claim]:
    return [
        Claim(id=f"c{n}", text=c.text, citations=list(c.citations))
        for n, c in enumerate(extracted, start=1)
    ]


async def judge_dataset_async(
    dataset: Dataset,
    judge: Judge,
    *,
    k: int | None = None,
    progress: Progress | None = None,
) -> JudgeResult:
    """Judge every answered result of every run; a label or a note for every item, none dropped."""
    ks = dataset.cutoffs(k)
    check_judgeable(dataset, ks)
    index = SnapshotIndex.build(dataset.snapshot)
    questions = {q.id: q for q in dataset.evalset.questions}
    todo = [
        _judge_result(
            judge,
            run.name,
            questions[res.question_id],
            res,
            passages_for(res, index, ks[run.name]),
            label_context_hash(res, index, ks[run.name]),
            progress,
        )
        for run in dataset.runs
        for res in run.results
    ]
    # One gather over every run, so the concurrency limit is shared by all of them.
    everything: list[_Outcome] = list(await asyncio.gather(*todo))
    out = []
    start = 0
    for run in dataset.runs:
        done = everything[start : start + len(run.results)]
        start += len(run.results)
        labels = LabelSet(
            run=run.name,
            claim_labels=[e for o in done for e in o.claim_labels],
            fact_labels=[e for o in done for e in o.fact_labels],
        )
        new_run = None
        if any(o.changed for o in done):
            note = (
                f"claims/outcomes by judge {judge.spec.model} (prompt {judge.spec.prompt_version})"
            )
            provenance = run.provenance.model_copy(
                update={
                    "notes": f"{run.provenance.notes}; {note}" if run.provenance.notes else note
                }
            )
            new_run = Run(name=run.name, provenance=provenance, results=[o.result for o in done])
        out.append(JudgedRun(run.name, labels, new_run, tuple(n for o in done for n in o.notes)))
    return JudgeResult(judge.spec, tuple(out), judge.stats())


def judge_dataset(
    dataset: Dataset, judge: Judge, *, k: int | None = None, progress: Progress | None = None
) -> JudgeResult:
    """Synchronous wrapper of `judge_dataset_async`."""
    return asyncio.run(judge_dataset_async(dataset, judge, k=k, progress=progress))
