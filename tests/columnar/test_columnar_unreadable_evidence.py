"""An answerable question whose required evidence group holds only documents its asker may not
read contradicts itself: a system that respects permissions must refuse it, and the set scores
the refusal as a retrieval miss or a false refusal. Both readers refuse such an evaluation set
with the same message; before, both diagnosed `retrieval_miss` and the team was sent to fix a
retriever that had done right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loader_path import both_readers
from ragtriage.cli import cli
from ragtriage.errors import Problem

DOCS = [
    {"id": "pub", "text": "public text"},
    {"id": "fin", "text": "finance text", "access_groups": ["finance"]},
    {"id": "nobody", "text": "sealed text", "access_groups": []},
]
CHUNKS = [{"id": "fin#0", "document_id": "fin", "start": 0, "end": 7}]
EXPECTED = (
    "an alternative the asker (user_groups: {}) may read, as the question is answerable "
    "(else mark it unanswerable: the system should refuse this asker)"
)


def _question(qid: str, groups: list[list[str]], **extra: Any) -> dict[str, Any]:
    return {
        "id": qid, "text": f"{qid}?", "answerability": "answerable",
        "required_evidence": [{"any_of": g} for g in groups], **extra,
    }


def _write(
    tmp_path: Path, questions: list[dict[str, Any]], docs: list[dict[str, Any]] = DOCS
) -> tuple[Path, Path, Path]:
    snapshot, evalset, run = (tmp_path / n for n in ("snap.json", "ev.jsonl", "run.jsonl"))
    snapshot.write_text(json.dumps({
        "schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
        "documents": docs, "chunks": CHUNKS,
    }), "utf-8")
    header = {"schema_version": 1, "kind": "evalset", "evalset_id": "e"}
    evalset.write_text("\n".join(json.dumps(x) for x in [header, *questions]) + "\n", "utf-8")
    results = [
        {"question_id": q["id"], "candidates": [{"id": "pub", "score": 1.0}],
         "context": [{"id": "pub"}], "outcome": "refused", "answer": "I cannot share that."}
        for q in questions
    ]
    head = {"schema_version": 1, "kind": "run", "name": "r"}
    run.write_text("\n".join(json.dumps(x) for x in [head, *results]) + "\n", "utf-8")
    return evalset, snapshot, run


def _both(
    tmp_path: Path, questions: list[dict[str, Any]], docs: list[dict[str, Any]] = DOCS
) -> tuple[str, str] | list[Problem]:
    """Both readers' reports as JSON, or (when both refuse) their one list of problems."""
    found: list[Any] = both_readers(*_write(tmp_path, questions, docs))
    assert type(found[0]) is type(found[1])
    if isinstance(found[0], list):
        assert found[0] == found[1]
        return found[0]  # type: ignore[no-any-return]
    return found[0], found[1]


def test_a_group_only_others_may_read_is_refused_by_both_readers(tmp_path: Path) -> None:
    problems = _both(tmp_path, [
        _question("q-ok", [["pub"]], user_groups=["support"]),
        _question("q-closed", [["pub"], ["fin", "nobody"]], user_groups=["support"]),
        _question("q-chunk", [["fin#0"]], user_groups=[]),
    ])
    file = str(tmp_path / "ev.jsonl")
    assert problems == [
        Problem(file, "q-closed", "required_evidence[1]", EXPECTED.format("support"),
                "'fin' readable by finance; 'nobody' readable by no group", record="question"),
        Problem(file, "q-chunk", "required_evidence[0]", EXPECTED.format("none"),
                "'fin#0' readable by finance", record="question"),
    ]


def test_a_group_named_twice_is_refused_by_both_readers(tmp_path: Path) -> None:
    # a document's or an asker's group listed twice is a slip (a copy-paste), refused as a
    # repeated ID of `supersedes` is: before, both read it and a reason said "finance, finance"
    docs = [*DOCS, {"id": "hr", "text": "hr text", "access_groups": ["hr", "finance", "hr"]}]
    problems = _both(tmp_path, [
        _question("q-twice", [["pub"]], user_groups=["support", "finance", "support"]),
        _question("q-ok", [["pub"]], user_groups=["support"]),
    ], docs)
    assert problems == [
        Problem(str(tmp_path / "snap.json"), None, "documents[id=hr].access_groups",
                "each ID at most once", "'hr' more than once"),
        Problem(str(tmp_path / "ev.jsonl"), "q-twice", "user_groups", "each ID at most once",
                "'support' more than once"),
    ]


@pytest.mark.parametrize("question", [
    _question("q", [["fin", "pub"]], user_groups=["support"]),  # one readable alternative
    _question("q", [["fin"]], user_groups=["support", "finance"]),
    _question("q", [["fin"]]),  # asked without a user: not checked
    {"id": "q", "text": "q?", "answerability": "needs_clarification",
     "required_evidence": [{"any_of": ["fin"]}], "user_groups": ["support"]},
], ids=["one-readable-alternative", "asker-in-the-group", "no-user", "needs-clarification"])
def test_a_group_the_asker_may_read_one_of_is_scored_alike_by_both(
    tmp_path: Path, question: dict[str, Any]
) -> None:
    fast, loader = _both(tmp_path, [question])
    assert fast == loader


def test_the_command_names_file_question_field_expected_and_found(tmp_path: Path) -> None:
    evalset, snapshot, run = _write(
        tmp_path, [_question("q-closed", [["fin"]], user_groups=["support"])]
    )
    out = CliRunner().invoke(
        cli, ["diagnose", str(evalset), "--snapshot", str(snapshot), "--run", str(run)]
    )
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr == (
        "Error: 1 problem found in the input:\n"
        f"- {evalset}: question 'q-closed': required_evidence[0]: expected "
        f"{EXPECTED.format('support')}; found 'fin' readable by finance\n"
    )
