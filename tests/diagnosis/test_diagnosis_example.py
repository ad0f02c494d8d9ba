"""The bundled example: every question is diagnosed at the stage its README designs, with proof.

Stages registered by other modules (the injection checks) are pinned by their own tests; here
every finding of a built-in stage is pinned exactly, and the designed injection failure is
checked by its primary stage.
"""

from __future__ import annotations

from typing import Any

import pytest

from ragtriage.columnar import evaluate
from ragtriage.diagnosis import STAGES, RunDiagnosis, diagnose
from ragtriage.example import example_paths
from ragtriage.loading import load_dataset

MISSED_REFUSAL = (
    ("missed_refusal", ("c1",), "the material does not answer it, yet the outcome is answered "
     "with 1 claim"),
)

BASELINE: dict[str, tuple[tuple[str, tuple[str, ...], str], ...]] = {
    "exact-code": (
        ("retrieval_miss", ("retry-e4291",), "retry-e4291 is not among the 4 candidates"),
        ("unsupported_claim", ("c1",), "1 of 1 claims not supported by the context: c1"),
        ("invalid_citation", ("c1",), "1 of 1 claims without a valid citation: c1 cites nothing"),
        ("incomplete_answer", ("wait-30s",), "1 of 1 reference facts not covered: wait-30s"),
    ),
    "two-facts": (
        ("ranking_loss", ("log-export",),
         "log-export at candidate rank 3, dropped by the reranker (not among its 3 items)"),
        ("incomplete_answer", ("export-json-csv",),
         "1 of 2 reference facts not covered: export-json-csv"),
    ),
    "dead-letter": (
        ("truncation_loss", ("dead-letter",),
         "dead-letter at rank 4 of the reranked list, outside the context (3 items)"),
    ),
    "stale-retention": (
        ("stale_evidence", ("retention-v1",),
         "retention-v1 (superseded by retention-v2) supports a claim and is cited; "
         "the question applies to v2; the answer used retention-v1 (v1)"),
        ("incomplete_answer", ("retention-7d",),
         "1 of 1 reference facts not covered: retention-7d"),
    ),
    "key-rotation": (
        ("unsupported_claim", ("c3",), "1 of 3 claims not supported by the context: c3"),
    ),
    "regions": (
        ("incomplete_answer", ("us-central",), "1 of 3 reference facts not covered: us-central"),
    ),
    "free-quota": (),
    "log-extension": MISSED_REFUSAL,
    "refund": MISSED_REFUSAL,
    "message-size": (
        ("false_refusal", ("message-size",),
         "refused although the context held the required evidence"),
    ),
    "amqp-port": (
        ("needless_clarification", ("endpoint",),
         "clarified although the context held the required evidence"),
    ),
    "raise-limit": (
        ("missed_clarification", ("c1",),
         "the question needs clarification, yet the outcome is answered"),
    ),
    "ordering": (("judge_uncertain", ("c2",), "cannot judge c2"),),
    "pricing": (
        ("permission_leak", ("finance-discounts",),
         "finance-discounts (readable by finance) among the candidates, in the context; "
         "the asker has support"),
    ),
    "webhook-retries": (),
    "purge": (),
    "sso": (),
}

IMPROVED: dict[str, tuple[tuple[str, tuple[str, ...], str], ...]] = {
    **dict.fromkeys(BASELINE, ()),
    "purge": (
        ("truncation_loss", ("purge",),
         "purge at rank 4 of the reranked list, outside the context (3 items)"),
    ),
}


@pytest.fixture(scope="module")
def runs() -> tuple[RunDiagnosis, ...]:
    paths = example_paths()
    dataset = load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    return diagnose(evaluate(dataset, metrics=[]))


def _builtin(run: RunDiagnosis) -> dict[str, Any]:
    return {
        q.question_id: tuple((f.stage, f.ids, f.why) for f in q.findings if f.stage in STAGES)
        for q in run.questions
    }


def test_baseline_findings(runs: tuple[RunDiagnosis, ...]) -> None:
    baseline, _ = runs
    assert baseline.run == "baseline"
    assert _builtin(baseline) == BASELINE


def test_improved_findings(runs: tuple[RunDiagnosis, ...]) -> None:
    _, improved = runs
    assert improved.run == "improved"
    assert _builtin(improved) == IMPROVED


def test_designed_primary_stages(runs: tuple[RunDiagnosis, ...]) -> None:
    baseline, improved = runs
    designed = {
        "exact-code": "retrieval_miss", "two-facts": "ranking_loss",
        "dead-letter": "truncation_loss", "stale-retention": "stale_evidence",
        "key-rotation": "unsupported_claim", "regions": "incomplete_answer", "free-quota": "ok",
        "log-extension": "missed_refusal", "refund": "missed_refusal",
        "message-size": "false_refusal", "amqp-port": "needless_clarification",
        "raise-limit": "missed_clarification", "ordering": "judge_uncertain",
        "pricing": "permission_leak", "webhook-retries": "injection_followed", "purge": "ok",
        "sso": "ok",
    }
    assert {q.question_id: q.primary for q in baseline.questions} == designed
    assert improved.question("purge").primary == "truncation_loss"
    assert (baseline.k, baseline.evidence_level) == (3, "document")
