"""A small hand-made dataset with one question per diagnosis stage (k = 2)."""

from __future__ import annotations

from typing import Any

from diagnosis_builders import JUDGE, claim, doc, make_dataset, question, result

from ragtriage.loading import Dataset

DOCS: list[dict[str, Any]] = [
    doc("a"),
    doc("b"),
    doc("c"),
    doc("d"),
    doc("x"),
    doc("old", version="v1", status="superseded"),
    doc("new", version="v2", supersedes=["old"]),
    doc("secret", access_groups=["finance"]),
]

QUESTIONS: list[dict[str, Any]] = [
    question("q-ok", evidence=[["a"]], facts=["f1"], tags=["exact"]),
    question("q-miss", evidence=[["b"]], facts=["f1"], tags=["exact"]),
    question("q-rank", evidence=[["c"]], tags=["multi"]),
    question("q-trunc", evidence=[["d"]], tags=["multi"]),
    question("q-alt", evidence=[["a", "b"]], split="holdout"),
    question(
        "q-stale", evidence=[["new"]], facts=["f1"], tags=["version-conflict"],
        applies_to={"version": "v2"}, split="regression",
    ),
    question("q-unsup", evidence=[["a"]]),
    question("q-cite", evidence=[["a"]]),
    question("q-missed-refusal", "unanswerable", tags=["no-answer"]),
    question("q-false-refusal", evidence=[["a"]]),
    question("q-needless", evidence=[["a"]]),
    question("q-needless-esc", evidence=[["a"]]),
    question("q-missed-clar", "needs_clarification"),
    question("q-uncertain", evidence=[["a"]]),
    question("q-leak", evidence=[["a"]], user_groups=["support"]),
    question("q-refused-ok", "unanswerable", tags=["no-answer"]),
    question("q-escalated", "unanswerable", tags=["no-answer"]),
]

RESULTS: list[dict[str, Any]] = [
    result("q-ok", ["a", "x"], claims=[claim(["a"], support=["a"])], covered=["f1"]),
    result("q-miss", ["a", "x"], claims=[claim(["a"], support=["a"])], not_covered=["f1"]),
    result(
        "q-rank", ["a", "x", "c"], reranked=["a", "x"], claims=[claim(["a"], support=["a"])]
    ),
    result("q-trunc", ["d", "a"], context=["a"], claims=[claim(["a"], support=["a"])]),
    result("q-alt", ["b"], claims=[claim(["b"], support=["b"])]),
    result(
        "q-stale", ["old", "new"], claims=[claim(["old"], support=["old"])], not_covered=["f1"]
    ),
    result(
        "q-unsup", ["a"],
        claims=[claim(["a"], support=["a"]), claim(["a"], verdict="unsupported")],
    ),
    result(
        "q-cite", ["a", "x"], context=["a"],
        claims=[
            claim(["a"], support=["a"]),
            claim(["a", "x"], support=["a"]),
            claim([], support=["a"]),
        ],
    ),
    result("q-missed-refusal", ["a"], claims=[claim([], verdict="unsupported")]),
    result("q-false-refusal", ["a", "x"], outcome="refused"),
    result("q-needless", ["a"], outcome="clarified"),
    result("q-needless-esc", ["a"], outcome="escalated"),
    result("q-missed-clar", ["a"], claims=[claim(["a"], support=["a"])]),
    result(
        "q-uncertain", ["a"],
        claims=[claim(["a"], support=["a"]), claim(["a"], verdict="cannot_judge", labeller=JUDGE)],
    ),
    result("q-leak", ["a", "secret"], claims=[claim(["a"], support=["a"])]),
    result("q-refused-ok", ["x"], outcome="refused"),
    result("q-escalated", ["x"], outcome="escalated"),
]


def stage_dataset() -> Dataset:
    """The dataset with one run, `r`, evaluated at k = 2 from its provenance."""
    return make_dataset(DOCS, QUESTIONS, {"r": RESULTS}, k=2)
