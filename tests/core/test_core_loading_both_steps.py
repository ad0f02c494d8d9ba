"""One error for both steps of checking the input: the schema problems of some questions and
the problems the semantic checks find in the other questions (an unknown ID, a missing
result, ...), where the files let the second step run over what passed the first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from core_builders import (
    claim,
    doc,
    evalset_doc,
    question,
    result,
    run_doc,
    snapshot_doc,
    write_json,
)

from ragtriage.cli.main import cli
from ragtriage.columnar import evaluate_native, load_and_evaluate
from ragtriage.errors import InputError


def _files(
    tmp: Path,
    questions: dict[str, dict[str, Any]] | None = None,
    results: dict[str, dict[str, Any]] | None = None,
    documents: dict[str, dict[str, Any]] | None = None,
    *,
    jsonl: bool = False,
) -> list[str]:
    """Three questions over two documents and one run answering each, with `questions`,
    `results` and `documents` changed by ID; the `evaluate` arguments for them."""
    labelled = [claim("a", ["d1"], "supported", ["d1"])]
    docs = [{**doc(d), **(documents or {}).get(d, {})} for d in ("d1", "d2")]
    qs = [{**question(q, evidence=[["d1"]]), **(questions or {}).get(q, {})}
          for q in ("q1", "q2", "q3")]
    rs = [{**result(q, ["d1"], context=["d1"], claims=labelled), **(results or {}).get(q, {})}
          for q in ("q1", "q2", "q3")]
    write_json(tmp / "snapshot.json", snapshot_doc(docs))
    files = {"evalset": (evalset_doc(qs), "questions"), "run": (run_doc("r", rs), "results")}
    paths = {}
    for name, (content, items) in files.items():
        path = tmp / f"{name}.{'jsonl' if jsonl else 'json'}"
        if jsonl:
            header = {key: value for key, value in content.items() if key != items}
            lines = [header, *content[items]]
            path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        else:
            write_json(path, content)
        paths[name] = str(path)
    return [paths["evalset"], "--snapshot", str(tmp / "snapshot.json"), "--run", paths["run"]]


def _errors(tmp: Path, *args: str) -> list[str]:
    out = CliRunner().invoke(cli, list(args))
    assert out.exit_code == 2
    assert "Traceback" not in out.stderr
    return out.stderr.replace(str(tmp) + "/", "").splitlines()


def test_the_other_questions_problems_come_with_the_schema_problems(tmp_path: Path) -> None:
    # q1: a schema problem in the evaluation set (its result names an unknown document too);
    # q3: a schema problem in the run (and an unknown document); q2: an unknown document only.
    # Only q2's is the second step's to say now: q1's and q3's records were not all read.
    args = _files(
        tmp_path,
        questions={"q1": {"answerability": "maybe"}},
        results={
            "q1": {"candidates": [{"id": "ghost"}]},
            "q2": {"candidates": [{"id": "ghost"}]},
            "q3": {"latency_ms": "fast", "candidates": [{"id": "ghost"}]},
        },
    )
    assert _errors(tmp_path, "evaluate", *args) == [
        "Error: 3 problems found in the input:",
        "- evalset.json: question 'q1': answerability: expected 'answerable', 'unanswerable' or "
        "'needs_clarification'; found 'maybe'",
        "- run.json: question 'q3': latency_ms: expected a valid number; found 'fast'",
        "- run.json: question 'q2': candidates: expected IDs of documents or chunks in the "
        "snapshot; found 'ghost'",
    ]


@pytest.mark.parametrize("command", ["evaluate", "diagnose", "compare"])
def test_jsonl_files_are_checked_in_both_steps_by_every_scoring_command(
    tmp_path: Path, command: str
) -> None:
    args = _files(
        tmp_path,
        questions={"q1": {"answerability": "maybe"}},
        results={"q2": {"candidates": [{"id": "ghost"}]}},
        jsonl=True,
    )
    assert _errors(tmp_path, command, *args) == [
        "Error: 2 problems found in the input:",
        "- evalset.jsonl: question 'q1': line 2: answerability: expected 'answerable', "
        "'unanswerable' or 'needs_clarification'; found 'maybe'",
        "- run.jsonl: question 'q2': candidates: expected IDs of documents or chunks in the "
        "snapshot; found 'ghost'",
    ]


def test_the_fast_reader_and_the_loader_report_the_same_problems(tmp_path: Path) -> None:
    args = _files(
        tmp_path,
        questions={"q2": {"required_evidence": [{"any_of": ["d9"]}], "text": 5}},
        results={"q1": {"context": [{"id": "d1"}, {"id": "d1"}]}, "q3": {"outcome": "sure"}},
        jsonl=True,
    )
    evalset, snapshot, run = args[0], args[2], args[4]
    refusals = []
    for score in (
        lambda: evaluate_native(evalset, snapshot, [run], workers=1),
        lambda: load_and_evaluate(evalset, snapshot=snapshot, runs=[run]),
    ):
        with pytest.raises(InputError) as refused:
            score()
        refusals.append([p.message().replace(str(tmp_path) + "/", "")
                         for p in refused.value.problems])
    assert refusals[0] == refusals[1] == [
        "evalset.jsonl: question 'q2': line 3: text: expected a valid string; found 5",
        "run.jsonl: question 'q3': line 4: outcome: expected 'answered', 'refused', "
        "'clarified' or 'escalated'; found 'sure'",
        "run.jsonl: question 'q1': context: expected each ID at most once; found 'd1' more than once",
    ]


def test_a_problem_of_a_whole_run_waits(tmp_path: Path) -> None:
    # The run holds no label: said of the whole run, with a count a question not read (its
    # result, or the question itself) changes.
    bare = {"claims": [claim("a", ["d1"], None)]}
    args = _files(tmp_path, results={"q1": bare, "q2": bare, "q3": {**bare, "latency_ms": []}})
    assert _errors(tmp_path, "evaluate", *args) == [
        "Error: 1 problem found in the input:",
        "- run.json: question 'q3': latency_ms: expected a valid number; found []",
    ]
    questions = {"q3": {"tags": "a"}}
    args = _files(tmp_path, questions, results={"q1": bare, "q2": bare, "q3": bare})
    assert _errors(tmp_path, "evaluate", *args) == [
        "Error: 1 problem found in the input:",
        "- evalset.json: question 'q3': tags: expected a valid list; found 'a'",
    ]
    args = _files(tmp_path, results={"q1": bare, "q2": bare, "q3": bare})
    assert _errors(tmp_path, "evaluate", *args)[1:] == [
        "- run.json: labels: expected a review label for every claim and reference fact of an "
        "answer (in the run or a --labels FILE; or --allow-unreviewed); found no labels for run "
        "'r' (3 claims and reference facts without one): did you forget --labels FILE?",
    ]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            {"questions": {"q1": {"id": " "}}},
            "- evalset.json: question ' ': id: expected an identifier without control "
            "characters, not only whitespace; found ' '",
        ),
        (
            {"documents": {"d2": {"text": 3}}},
            "- snapshot.json: document 'd2': text: expected a valid string; found 3",
        ),
        (
            {"results": {"q1": {"question_id": 7}}},
            "- run.json: results[0].question_id: expected a valid string; found 7",
        ),
    ],
    ids=["question ID refused", "document", "result without a readable ID"],
)
def test_a_problem_no_valid_question_id_names_stops_at_the_first_step(
    tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    # The second step could only guess here: the question (or result) of the refused ID may be
    # the one another file names, and a document refused may be the one a context names.
    results = {"q2": {"candidates": [{"id": "ghost"}]}, **change.pop("results", {})}
    args = _files(tmp_path, results=results, **change)
    assert _errors(tmp_path, "evaluate", *args) == [
        "Error: 1 problem found in the input:", problem,
    ]


def test_judge_checks_both_steps_at_once(tmp_path: Path) -> None:
    args = _files(
        tmp_path,
        questions={"q1": {"answerability": "maybe"}},
        results={"q2": {"candidates": [{"id": "ghost"}]}},
    )
    out = str(tmp_path / "labels")
    assert _errors(tmp_path, "judge", *args, "--judge", "lexical", "-o", out) == [
        "Error: 2 problems found in the input:",
        "- evalset.json: question 'q1': answerability: expected 'answerable', 'unanswerable' or "
        "'needs_clarification'; found 'maybe'",
        "- run.json: question 'q2': candidates: expected IDs of documents or chunks in the "
        "snapshot; found 'ghost'",
    ]
    assert not (tmp_path / "labels").exists()


def test_load_checked_reports_both_steps_for_run_and_calibrate(tmp_path: Path) -> None:
    # `ragtriage run` and `calibrate` read their input through it; an unlabelled answer is fine.
    from ragtriage.validation import load_checked

    bare = {"claims": [claim("a", ["d1"], None)]}
    args = _files(
        tmp_path,
        questions={"q1": {"answerability": "maybe"}},
        results={"q2": {**bare, "candidates": [{"id": "ghost"}]}, "q3": bare},
    )
    with pytest.raises(InputError) as refused:
        load_checked(args[0], args[2], [args[4]])
    assert [p.message().replace(str(tmp_path) + "/", "") for p in refused.value.problems] == [
        "evalset.json: question 'q1': answerability: expected 'answerable', 'unanswerable' or "
        "'needs_clarification'; found 'maybe'",
        "run.json: question 'q2': candidates: expected IDs of documents or chunks in the "
        "snapshot; found 'ghost'",
    ]
    args = _files(tmp_path, results={"q2": bare, "q3": bare})
    assert [q.id for q in load_checked(args[0], args[2], [args[4]]).evalset.questions] == [
        "q1", "q2", "q3",
    ]


@pytest.mark.parametrize("jsonl", [False, True], ids=["json", "jsonl"])
def test_a_broken_versions_file_does_not_hide_the_input_s_problems(
    tmp_path: Path, jsonl: bool
) -> None:
    # The versions file's problems are found without it; the input's are found without it too.
    # Its other entries are checked against the snapshot: d7 names no document.
    versions = write_json(tmp_path / "versions.json", {"d1": {"version": 3}, "d7": {}})
    ghost = {"q2": {"candidates": [{"id": "ghost"}]}}
    args = [*_files(tmp_path, results=ghost, jsonl=jsonl), "--versions", str(versions)]
    suffix = "jsonl" if jsonl else "json"
    refused = [
        "- versions.json: d1.version: expected a valid string; found 3",
        "- versions.json: d7: expected a document ID of the snapshot; found 'd7'",
        f"- run.{suffix}: question 'q2': candidates: expected IDs of documents or chunks in the "
        "snapshot; found 'ghost'",
    ]
    assert _errors(tmp_path, "evaluate", *args) == [
        "Error: 3 problems found in the input:", *refused,
    ]
    args = [*_files(tmp_path, {"q1": {"tags": "a"}}, ghost, jsonl=jsonl), "--versions",
            str(versions)]
    line = "line 2: " if jsonl else ""
    assert _errors(tmp_path, "evaluate", *args) == [
        "Error: 4 problems found in the input:",
        f"- evalset.{suffix}: question 'q1': {line}tags: expected a valid list; found 'a'",
        *refused,
    ]


def test_a_versions_entry_refused_does_not_hide_the_other_entries(tmp_path: Path) -> None:
    # Each entry is checked apart: those that pass are checked against the snapshot, and an
    # entry refused is still checked to name a document (its ID is the key, whatever its
    # fields). A loop of supersession through a refused entry's document is not named: once
    # mended, the entry may replace that document's `supersedes` (here d2 -> d3 ends it).
    args = _files(tmp_path)
    docs = [doc("d1"), doc("d2", supersedes=["d1"]), doc("d3")]
    write_json(tmp_path / "snapshot.json", snapshot_doc(docs))
    versions = tmp_path / "versions.json"
    write_json(versions, {"d1": {"version": 1}, "ghost": {"version": "v2"}, "d9": {"version": 2}})
    assert _errors(tmp_path, "evaluate", *args, "--versions", str(versions)) == [
        "Error: 4 problems found in the input:",
        "- versions.json: d1.version: expected a valid string; found 1",
        "- versions.json: d9.version: expected a valid string; found 2",
        "- versions.json: ghost: expected a document ID of the snapshot; found 'ghost'",
        "- versions.json: d9: expected a document ID of the snapshot; found 'd9'",
    ]
    write_json(versions, {"d1": {"supersedes": ["d2"]}, "d2": {"supersedes": ["d3"], "status": 0}})
    assert _errors(tmp_path, "evaluate", *args, "--versions", str(versions)) == [
        "Error: 1 problem found in the input:",
        "- versions.json: d2.status: expected 'current', 'superseded' or 'withdrawn'; found 0",
    ]
    write_json(versions, {"d1": {"supersedes": ["d2"]}, "d2": {"supersedes": ["d3"]}})
    out = CliRunner().invoke(cli, ["evaluate", *args, "--versions", str(versions)])
    assert (out.exit_code, out.stderr) == (0, "")


def test_a_snapshot_s_schema_problem_comes_with_the_versions_file_s_own(tmp_path: Path) -> None:
    # The snapshot's problem stops the checks against it (d9 waits), not the versions file's
    # own schema problems: before, they came once the snapshot was mended.
    args = _files(tmp_path, documents={"d2": {"status": "old"}})
    versions = write_json(tmp_path / "versions.json", {"d1": {"version": 3}, "d9": {}})
    assert _errors(tmp_path, "evaluate", *args, "--versions", str(versions)) == [
        "Error: 2 problems found in the input:",
        "- snapshot.json: document 'd2': status: expected 'current', 'superseded' or "
        "'withdrawn'; found 'old'",
        "- versions.json: d1.version: expected a valid string; found 3",
    ]


def test_a_version_a_versions_entry_gives_is_known_while_another_entry_is_refused(
    tmp_path: Path,
) -> None:
    # q1 applies to v9, which only the versions file's d1 gives: d1's entry passes, so v9 is
    # a version some document has, whatever the other entries' problems
    args = _files(tmp_path, {"q1": {"applies_to": {"version": "v9"}}})
    versions = tmp_path / "versions.json"
    write_json(versions, {"d1": {"version": "v9"}, "ghost": {}, "d2": {"version": 2}})
    assert _errors(tmp_path, "evaluate", *args, "--versions", str(versions)) == [
        "Error: 2 problems found in the input:",
        "- versions.json: d2.version: expected a valid string; found 2",
        "- versions.json: ghost: expected a document ID of the snapshot; found 'ghost'",
    ]


def test_review_import_refuses_what_review_export_refuses(tmp_path: Path) -> None:
    # A sheet is read against the files it was exported from: files `evaluate` (and `review
    # export`) refuse are refused before any row is read.
    sheet, labels = tmp_path / "sheet.csv", str(tmp_path / "labels")
    exported = CliRunner().invoke(cli, ["review", "export", *_files(tmp_path), "-o", str(sheet)])
    assert exported.exit_code == 0, exported.stderr
    ghost = {"q2": {"candidates": [{"id": "ghost"}]}}
    unknown = (
        "- run.json: question 'q2': candidates: expected IDs of documents or chunks in the "
        "snapshot; found 'ghost'"
    )
    args = _files(tmp_path, results=ghost)
    assert _errors(tmp_path, "review", "import", args[0], str(sheet), *args[1:], "-o", labels) == [
        "Error: 1 problem found in the input:", unknown,
    ]
    args = _files(tmp_path, {"q1": {"tags": "a"}}, ghost)
    assert _errors(tmp_path, "review", "import", args[0], str(sheet), *args[1:], "-o", labels) == [
        "Error: 2 problems found in the input:",
        "- evalset.json: question 'q1': tags: expected a valid list; found 'a'",
        unknown,
    ]
    assert not (tmp_path / "labels").exists()


def test_a_question_refused_still_counts_as_one_with_its_id(tmp_path: Path) -> None:
    # A blank question takes its place in the second step: a second question with its ID is a
    # repeat (its problems come once mended), which leaves the runs' checks that do not depend
    # on it (q2's unknown candidate), and a result for a near ID is told which one it may have
    # meant.
    ghost = {"q2": {"candidates": [{"id": "ghost"}]}}
    args = _files(tmp_path, results=ghost)
    evalset = json.loads((tmp_path / "evalset.json").read_text(encoding="utf-8"))
    evalset["questions"].append({**evalset["questions"][0], "answerability": "maybe"})
    write_json(tmp_path / "evalset.json", evalset)
    assert _errors(tmp_path, "evaluate", *args) == [
        "Error: 2 problems found in the input:",
        "- evalset.json: question 'q1': answerability: expected 'answerable', 'unanswerable' or "
        "'needs_clarification'; found 'maybe'",
        "- run.json: question 'q2': candidates: expected IDs of documents or chunks in the "
        "snapshot; found 'ghost'",
    ]
    args = _files(tmp_path, {"q3": {"tags": "a"}}, {"q3": {"question_id": "q3x"}})
    assert _errors(tmp_path, "evaluate", *args)[2:] == [
        "- run.json: question 'q3x': results.question_id: expected a question of the evaluation "
        "set; found no such question (did you mean 'q3'?)",
    ]
