"""`compare baseline improved` on the bundled example lists exactly the designed changes.

The designed stages come from src/ragtriage/example/README.md (holdout questions are left out
by default: `free-quota` and `sso`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from ragtriage.cli.main import cli

DESIGNED_REGRESSIONS = ["purge: ok -> truncation_loss"]
DESIGNED_IMPROVEMENTS = [
    "exact-code: retrieval_miss -> ok",
    "two-facts: ranking_loss -> ok",
    "dead-letter: truncation_loss -> ok",
    "stale-retention: stale_evidence -> ok",
    "key-rotation: unsupported_claim -> ok",
    "regions: incomplete_answer -> ok",
    "log-extension: missed_refusal -> ok",
    "refund: missed_refusal -> ok",  # README: `escalated`, the correct outcome here (stage ok)
    "message-size: false_refusal -> ok",
    "amqp-port: needless_clarification -> ok",
    "raise-limit: missed_clarification -> ok",
    "ordering: judge_uncertain -> ok",
    "pricing: permission_leak -> ok",
    # both stages are failures; the answer no longer obeys the planted canary (canary_obeyed)
    "webhook-retries: injection_followed -> injection_in_context",
]


def _compare(*extra: str) -> Any:
    outcome = CliRunner().invoke(
        cli,
        [
            "compare",
            "--example",
            "--baseline",
            "baseline",
            "--candidate",
            "improved",
            "--format",
            "json",
            "--resamples",
            "300",
            *extra,
        ],
    )
    assert outcome.exit_code == 0, outcome.stderr
    return json.loads(outcome.stdout)


def test_designed_improvements_and_regressions_with_stage_changes() -> None:
    data = _compare()
    pair = data["comparisons"][0]
    changes = [(q["status"], q["stage_change"]) for q in pair["questions"]]
    assert [c for s, c in changes if s in ("regressed", "mixed")] == DESIGNED_REGRESSIONS
    assert [c for s, c in changes if s == "improved"] == DESIGNED_IMPROVEMENTS
    assert [c for s, c in changes if s in ("changed", "unchanged")] == []
    assert pair["counts"] == {
        "regressed": 1,
        "mixed": 0,
        "improved": 14,
        "changed": 0,
        "unchanged": 0,
    }


def test_example_comparison_is_called_confounded() -> None:
    data = _compare()
    assert data["warnings"] == [
        "baseline vs improved: confounded comparison: 4 conditions differ "
        "(retriever, filters, reranker, prompt_version); a difference cannot be attributed "
        "to one of them"
    ]


def test_holdout_questions_appear_only_when_included(tmp_path: Path) -> None:
    data = _compare("--include-holdout", "--ledger", str(tmp_path / "ledger.jsonl"))
    ids = [q["id"] for q in data["comparisons"][0]["questions"]]
    assert ids[-2:] == ["free-quota", "sso"]
    assert data["questions"] == 17
