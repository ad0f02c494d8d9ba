"""Hand-built datasets for comparison tests: small enough to check every number by hand.

`make_dataset({name: (provenance overrides, {qid: result})})`; unlisted questions are correct.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragtriage.loading import Dataset, SourceFile
from ragtriage.schemas import (
    Claim,
    ClaimLabel,
    ContextItem,
    Document,
    EvalSet,
    EvidenceGroup,
    FactLabel,
    Labeller,
    Provenance,
    Question,
    QuestionResult,
    RankedItem,
    ReferenceFact,
    Run,
    Snapshot,
)

HUMAN = Labeller(kind="human", name="reviewer")
QUESTIONS = {
    # id: (split, tags)
    "q1": ("dev", ["multi-fact"]),
    "q2": ("regression", ["fixed-regression"]),
    "q3": ("dev", []),
    "q4": ("dev", ["version-conflict"]),
    "q5": ("holdout", []),
}


def result(
    qid: str,
    hit: bool = True,
    *,
    supported: bool = True,
    covered: bool = True,
    outcome: str = "answered",
    latency: float | None = 100.0,
    cost: float | None = 0.001,
) -> QuestionResult:
    """One answered question: the required document is in the context when `hit`."""
    doc = f"d-{qid}" if hit else "d-other"
    claims = [
        Claim(
            id="c1",
            text="a claim",
            citations=[doc],
            labels=[
                ClaimLabel(
                    verdict="supported" if supported else "unsupported",
                    supported_by=[doc] if supported else [],
                    labeller=HUMAN,
                )
            ],
        )
    ]
    facts = [
        FactLabel(fact_id="f1", verdict="covered" if covered else "not_covered", labeller=HUMAN)
    ]
    return QuestionResult(
        question_id=qid,
        candidates=[RankedItem(id=doc)],
        context=[ContextItem(id=doc)],
        answer="an answer" if outcome == "answered" else "I cannot answer that.",
        outcome=outcome,  # type: ignore[arg-type]
        claims=claims if outcome == "answered" else [],
        fact_labels=facts if outcome == "answered" else [],
        latency_ms=latency,
        cost_usd=cost,
    )


def make_dataset(
    runs: Mapping[str, tuple[dict[str, Any], Mapping[str, QuestionResult]]],
) -> Dataset:
    """A dataset whose questions q1..q5 each need document d-<id>; runs given per question."""
    docs = [Document(id=f"d-{q}", text=f"text of {q}") for q in QUESTIONS] + [
        Document(id="d-other", text="unrelated")
    ]
    questions = [
        Question(
            id=q,
            text=f"question {q}?",
            answerability="answerable",
            required_evidence=[EvidenceGroup(any_of=[f"d-{q}"])],
            reference_facts=[ReferenceFact(id="f1", text="fact")],
            split=split,  # type: ignore[arg-type]
            tags=tags,
        )
        for q, (split, tags) in QUESTIONS.items()
    ]
    built = []
    for name, (prov, results) in runs.items():
        defaults: dict[str, Any] = {"snapshot_id": "snap-1", "evalset_id": "set-1", "k": 1}
        defaults.update(prov)
        filled = [results.get(q) or result(q) for q in QUESTIONS]
        built.append(Run(name=name, provenance=Provenance(**defaults), results=filled))
    return Dataset(
        Snapshot(snapshot_id="snap-1", documents=docs),
        EvalSet(evalset_id="set-1", snapshot_id="snap-1", questions=questions),
        tuple(built),
        (SourceFile("evalset.json", "evalset", "0" * 64),),
        run_files={name: f"{name}.json" for name in runs},
    )
