"""Builders for small in-memory datasets used by the diagnosis and ranking tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dataset_builders import (
    HUMAN as HUMAN,
    JUDGE as JUDGE,
    make_dataset as make_dataset,
    question as question,
)
from ragtriage.columnar import evaluate
from ragtriage.diagnosis import RunDiagnosis, diagnose
from ragtriage.loading import Dataset


def doc(doc_id: str, **extra: Any) -> dict[str, Any]:
    """A snapshot document."""
    return {"id": doc_id, "text": f"text of {doc_id}", **extra}


def claim(
    cites: Sequence[str] = (),
    verdict: str | None = "supported",
    support: Sequence[str] = (),
    labeller: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A claim with one label (none when `verdict` is None)."""
    labels = []
    if verdict is not None:
        labels.append(
            {"verdict": verdict, "supported_by": list(support), "labeller": labeller or HUMAN}
        )
    return {"text": "a claim", "citations": list(cites), "labels": labels}


def result(
    qid: str,
    candidates: Sequence[str] = (),
    *,
    context: Sequence[str] | None = None,
    reranked: Sequence[str] | None = None,
    outcome: str | None = "answered",
    claims: Sequence[dict[str, Any]] | None = None,
    covered: Sequence[str] = (),
    not_covered: Sequence[str] = (),
    fact_labeller: dict[str, Any] | None = None,
    fact_verdicts: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A question result; fact labels from `covered`, `not_covered` and `fact_verdicts`."""
    verdicts = {f: "covered" for f in covered} | {f: "not_covered" for f in not_covered}
    verdicts |= fact_verdicts or {}
    out: dict[str, Any] = {
        "question_id": qid,
        "candidates": [
            {"id": i, "score": float(len(candidates) - n)} for n, i in enumerate(candidates)
        ],
        "answer": "an answer" if outcome is not None else None,
        "outcome": outcome,
        "claims": list(claims) if claims is not None else ([] if outcome is not None else None),
        "fact_labels": [
            {"fact_id": f, "verdict": v, "labeller": fact_labeller or HUMAN}
            for f, v in verdicts.items()
        ],
    }
    if context is not None:
        out["context"] = [{"id": i} for i in context]
    if reranked is not None:
        out["reranked"] = [{"id": i} for i in reranked]
    return out


def diagnose_dataset(dataset: Dataset, **options: Any) -> tuple[RunDiagnosis, ...]:
    """Evaluate (no metrics) and diagnose every run."""
    return diagnose(evaluate(dataset, metrics=[], **options))


def verdicts(run: RunDiagnosis) -> dict[str, tuple[str, tuple[str, ...]]]:
    """question -> (primary, secondary)."""
    return {q.question_id: (q.primary, q.secondary) for q in run.questions}
