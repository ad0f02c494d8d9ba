"""Disagreements the oracle found between the docs and the two algorithms, now settled: each
test pins the documented behaviour that both algorithms share."""

from __future__ import annotations

from pathlib import Path

from .small import HUMAN, Small, both, messages


def test_holdout_results_are_validated_alike(tmp_path: Path) -> None:
    small = Small.copy()
    small.evalset["questions"][1]["split"] = "holdout"
    small.run["results"][1]["claims"] = [{"text": "z", "labels": [
        {"verdict": "unsupported", "labeller": HUMAN}]}]
    reference, columnar = both(small.paths(tmp_path, ".json"))
    want = ["r.json: question 'q2': claims: expected no claims in a result whose outcome is "
            "refused; found 1 claim(s)"]
    assert messages(columnar, tmp_path) == want
    assert messages(reference, tmp_path) == want


def test_claims_without_an_outcome_are_not_ok(tmp_path: Path) -> None:
    small = Small.copy()
    small.snapshot["documents"][1]["status"] = "withdrawn"
    small.run["results"][0] = {
        "question_id": "q1", "context": [{"id": "d1"}, {"id": "d2"}],
        "claims": [
            {"text": "x", "citations": ["d2"],
             "labels": [{"verdict": "unsupported", "labeller": HUMAN}]},
            {"text": "y", "labels": [{"verdict": "supported", "supported_by": ["d2"],
                                      "labeller": HUMAN}]},
        ],
    }
    # Claims belong to an answer (docs/data-format.md: `outcome` and `answer` are null only
    # for a retrieval-only result), so both algorithms refuse them rather than score them.
    reference, columnar = both(small.paths(tmp_path, ".json"))
    want = ["r.json: question 'q1': claims: expected no claims in a result without an answer "
            "(outcome and answer are null); found 2 claim(s)"]
    assert messages(columnar, tmp_path) == want
    assert messages(reference, tmp_path) == want
