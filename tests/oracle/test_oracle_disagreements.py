"""Disagreements the oracle found between the docs and the package (then two algorithms), now
settled: each test pins the documented behaviour, the files read by the file reader or by the
loader."""

from __future__ import annotations

from pathlib import Path

from .small import HUMAN, Small, both, messages


def test_holdout_results_are_validated_alike(tmp_path: Path) -> None:
    small = Small.copy()
    small.evalset["questions"][1]["split"] = "holdout"
    small.run["results"][1]["claims"] = [{"text": "z", "labels": [
        {"verdict": "unsupported", "labeller": HUMAN}]}]
    loaded, read = both(small.paths(tmp_path, ".json"))
    want = ["r.json: question 'q2': claims: expected no claims in a result whose outcome is "
            "refused; found 1 claim"]
    assert messages(read, tmp_path) == want
    assert messages(loaded, tmp_path) == want


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
    # for a retrieval-only result), so they are refused rather than scored, whichever reads
    # the files.
    loaded, read = both(small.paths(tmp_path, ".json"))
    want = ["r.json: question 'q1': claims: expected no claims in a result without an answer "
            "(outcome and answer are null); found 2 claims"]
    assert messages(read, tmp_path) == want
    assert messages(loaded, tmp_path) == want
