"""File-level problems (broken JSON, wrong version, missing file, bad JSONL line, labels, chunks,
article rules) and the cut-off k: one clear message each, exit 2, no traceback."""

from __future__ import annotations

import json
import math
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
from ragtriage.errors import InputError
from ragtriage.validation import parse_k


def invoke(tmp_path: Path, *args: str) -> tuple[int, list[str]]:
    """Run the CLI inside tmp_path-relative paths; return exit code and stderr lines."""
    out = CliRunner().invoke(cli, list(args))
    assert out.stdout == "" or out.exit_code == 0
    assert "Traceback" not in out.stderr
    return out.exit_code, out.stderr.replace(str(tmp_path) + "/", "").splitlines()


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """A valid snapshot, evaluation set and run (q1 over d1) in tmp_path."""
    write_json(tmp_path / "snapshot.json", snapshot_doc([doc("d1", "alpha"), doc("d2", "beta")]))
    write_json(tmp_path / "evalset.json", evalset_doc([question("q1", evidence=[["d1"]])]))
    good = result("q1", ["d1"], context=["d1"], claims=[claim("c", ["d1"], "supported", ["d1"])])
    write_json(tmp_path / "run.json", run_doc("r", [good]))
    return tmp_path


def _eval_args(d: Path, *runs: str) -> list[str]:
    out = ["evaluate", str(d / "evalset.json"), "--snapshot", str(d / "snapshot.json")]
    for run in runs:
        out += ["--run", str(d / run)]
    return out


def test_broken_json(files: Path) -> None:
    (files / "evalset.json").write_text('{"kind": "evalset", "questions": [\n', encoding="utf-8")
    assert invoke(files, *_eval_args(files)) == (2, [
        "Error: 1 problem found in the input:",
        "- evalset.json: line 2 column 1: expected valid JSON; found the end of the file (the JSON is cut short)",
    ])


def test_a_metadata_value_of_no_allowed_type_is_one_problem(files: Path) -> None:
    # One problem per value, not one per type the value could have had (`metadata.a.str`,
    # `metadata.a.int`, ...); a value of an allowed type's subclass is taken as that type.
    import enum

    from ragtriage.schemas import Document

    class Kind(enum.StrEnum):
        A = "a"

    docs = [doc("d1", "alpha"), {**doc("d2", "beta"), "metadata": {"a": {"b": 1}, "n": None}}]
    write_json(files / "snapshot.json", snapshot_doc(docs))
    assert invoke(files, *_eval_args(files, "run.json")) == (2, [
        "Error: 2 problems found in the input:",
        "- snapshot.json: document 'd2': metadata.a: expected a string, a number or a boolean; "
        'found {"b": 1}',
        "- snapshot.json: document 'd2': metadata.n: expected a string, a number or a boolean; "
        "found null",
    ])
    assert Document(id="d", text="t", metadata={"k": Kind.A, "n": 1}).metadata == {"k": "a", "n": 1}
    assert type(Document(id="d", text="t", metadata={"k": Kind.A}).metadata["k"]) is str


def test_wrong_schema_version(files: Path) -> None:
    write_json(files / "evalset.json", {**evalset_doc([]), "schema_version": 2})
    assert invoke(files, *_eval_args(files)) == (2, [
        "Error: 1 problem found in the input:",
        "- evalset.json: schema_version: expected 1; found 2",
    ])


def test_wrong_article_schema_version(files: Path) -> None:
    write_json(files / "article.json", {"schemaVersion": 2})
    assert invoke(files, "evaluate", str(files / "article.json")) == (2, [
        "Error: 1 problem found in the input:",
        "- article.json: schemaVersion: expected 1 (the article format); found 2",
    ])


def test_article_schema_version_true_is_not_1(files: Path) -> None:
    write_json(files / "article.json", {**_article(), "schemaVersion": True})
    assert invoke(files, "evaluate", str(files / "article.json")) == (2, [
        "Error: 1 problem found in the input:",
        "- article.json: schemaVersion: expected 1 (the article format); found true",
    ])


def test_missing_file(files: Path) -> None:
    assert invoke(files, *_eval_args(files, "nope.json")) == (2, [
        "Error: 1 problem found in the input:",
        "- nope.json: (file): expected an existing file; found no such file",
    ])


def test_unknown_kind(files: Path) -> None:
    write_json(files / "evalset.json", {"kind": "nonsense", "schema_version": 1})
    assert invoke(files, *_eval_args(files)) == (2, [
        "Error: 1 problem found in the input:",
        "- evalset.json: kind: expected one of snapshot, evalset, run, labels; found 'nonsense'",
    ])


def test_native_evalset_needs_a_snapshot(files: Path) -> None:
    assert invoke(files, "evaluate", str(files / "evalset.json")) == (2, [
        "Error: 1 problem found in the input:",
        "- <command line>: --snapshot: expected a snapshot file for a native evaluation set; found none given",
    ])


def test_jsonl_run_with_a_bad_line_and_a_bad_record(files: Path) -> None:
    lines = [
        json.dumps({"kind": "run", "schema_version": 1, "name": "r"}),
        json.dumps(result("q1", ["d1"], context=["d1"], claims=[claim("c", ["d1"], "supported", ["d1"])])),
        "{not json}",
        json.dumps({"question_id": "q2", "bogus": 1}),
    ]
    (files / "run.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert invoke(files, *_eval_args(files, "run.jsonl")) == (2, [
        "Error: 2 problems found in the input:",
        "- run.jsonl: line 3 column 2: expected valid JSON; found a key not in double quotes, or a comma before a closing brace",
        "- run.jsonl: question 'q2': line 4: bogus: expected no such field (it is not part of the format); found an unknown field",
    ])


@pytest.mark.parametrize("cut", [1, 2])
def test_a_jsonl_line_cut_short_is_named_with_the_place_its_text_ends(
    files: Path, cut: int
) -> None:
    # The header (line 1) or a result (line 2) cut short: the place is the end of that line,
    # not the start of the next one.
    lines = [
        json.dumps({"kind": "run", "schema_version": 1, "name": "r"}),
        json.dumps(result("q1", ["d1"], context=["d1"])),
    ]
    lines[cut - 1] = lines[cut - 1][:-1] + "  "
    (files / "run.jsonl").write_text("\r\n".join(lines) + "\r\n", encoding="utf-8")
    assert invoke(files, *_eval_args(files, "run.jsonl")) == (2, [
        "Error: 1 problem found in the input:",
        f"- run.jsonl: line {cut} column {len(lines[cut - 1]) + 1}: expected valid JSON; found the "
        "end of the line (the JSON is cut short: a JSONL line holds one record)",
    ])


@pytest.mark.parametrize("jsonl", [False, True])
def test_results_with_an_empty_question_id_are_each_named_by_their_place(
    files: Path, jsonl: bool
) -> None:
    # An empty ID names no question: each result is named by its place, not merged into one
    # problem of "question ''".
    good = result("q1", ["d1"], context=["d1"])
    results = [good, {**good, "question_id": ""}, {**good, "question_id": ""}]
    if jsonl:
        head = json.dumps({"kind": "run", "schema_version": 1, "name": "r"})
        text = "\n".join([head, *map(json.dumps, results)]) + "\n"
        (files / "run.jsonl").write_text(text, encoding="utf-8")
        places = ["line 3: ", "line 4: "]
    else:
        write_json(files / "run.json", run_doc("r", results))
        places = ["results[1].", "results[2]."]
    name = "run.jsonl" if jsonl else "run.json"
    found = "question_id: expected a non-empty string; found an empty string"
    assert invoke(files, *_eval_args(files, name)) == (2, [
        "Error: 2 problems found in the input:",
        *(f"- {name}: {place}{found}" for place in places),
    ])


def test_valid_jsonl_run_loads(files: Path) -> None:
    good = result("q1", ["d1"], context=["d1"], claims=[claim("c", ["d1"], "supported", ["d1"])])
    text = json.dumps({"kind": "run", "schema_version": 1, "name": "r"}) + "\n\n" + json.dumps(good) + "\n"
    (files / "run.jsonl").write_text(text, encoding="utf-8")
    code, err = invoke(files, *_eval_args(files, "run.jsonl"), "--format", "json")
    assert (code, err) == (0, [])


def test_a_list_in_a_jsonl_header_line_is_refused_not_dropped(files: Path) -> None:
    # the lines after the header hold the lists: a list in the header was silently lost
    # (questions, documents, chunks, labels) or refused as an unknown field (results)
    lines = {
        "evalset.jsonl": [{"kind": "evalset", "schema_version": 1, "evalset_id": "e",
                           "questions": [{"id": "q0", "text": "?", "answerability": "unanswerable"}]},
                          question("q1", evidence=[["d1"]])],
        "snapshot.jsonl": [{"kind": "snapshot", "schema_version": 1, "snapshot_id": "s",
                            "chunks": [{"id": "d1#0", "document_id": "d1", "start": 0, "end": 2}]},
                           doc("d1", "alpha")],
        "run.jsonl": [{"kind": "run", "schema_version": 1, "name": "r", "results": []},
                      result("q1", ["d1"])],
    }  # fmt: skip
    for name, records in lines.items():
        text = "".join(json.dumps(r) + "\n" for r in records)
        (files / name).write_text(text, encoding="utf-8")
    args = ["evaluate", str(files / "evalset.jsonl"), "--snapshot", str(files / "snapshot.jsonl"),
            "--run", str(files / "run.jsonl")]  # fmt: skip
    assert invoke(files, *args) == (2, [
        "Error: 3 problems found in the input:",
        "- evalset.jsonl: line 1: questions: expected no questions in the header line (one record"
        ' per line after it); found [{"id": "q0", "text": "?", "answerability": "unanswerable"}]',
        "- snapshot.jsonl: line 1: chunks: expected no chunks in the header line (one record per"
        ' line after it); found [{"id": "d1#0", "document_id": "d1", "start": 0, "end": 2}]',
        "- run.jsonl: line 1: results: expected no results in the header line (one record per"
        " line after it); found []",
    ])


@pytest.mark.parametrize(
    ("k", "found"),
    [(0, "0"), (1.5, "1.5"), (-2, "-2"), (10_001, "10001"), (True, "true"), ("5", "'5'")],
)
def test_provenance_k_is_bounded_as_the_command_line_k(files: Path, k: Any, found: str) -> None:
    data = json.loads((files / "run.json").read_text(encoding="utf-8"))
    data["provenance"]["k"] = k
    write_json(files / "run.json", data)
    assert invoke(files, *_eval_args(files, "run.json")) == (2, [
        "Error: 1 problem found in the input:",
        f"- run.json: provenance.k: expected an integer from 1 to 10000; found {found}",
    ])


def test_provenance_k_at_the_bound_is_read(files: Path) -> None:
    data = json.loads((files / "run.json").read_text(encoding="utf-8"))
    data["provenance"]["k"] = 10_000
    write_json(files / "run.json", data)
    assert invoke(files, *_eval_args(files, "run.json"), "--format", "json")[0] == 0


def test_duplicate_run_names(files: Path) -> None:
    assert invoke(files, *_eval_args(files, "run.json", "run.json")) == (2, [
        "Error: 1 problem found in the input:",
        "- run.json: name: expected a run name not used by another run; found 'r', as the run "
        "of run.json",
    ])


def test_label_file_problems(files: Path) -> None:
    human = {"kind": "human", "name": "h"}
    write_json(files / "labels.json", {
        "kind": "labels", "schema_version": 1, "run": "r",
        "claim_labels": [
            {"question_id": "q9", "claim_id": "c1", "label": {"verdict": "unsupported", "labeller": human}},
            {"question_id": "q1", "claim_id": "c7", "label": {"verdict": "unsupported", "labeller": human}},
        ],
        "fact_labels": [{"question_id": "q9", "label": {"fact_id": "f", "verdict": "covered", "labeller": human}}],
    })
    write_json(files / "other.json", {"kind": "labels", "schema_version": 1, "run": "nope"})
    code, err = invoke(files, *_eval_args(files, "run.json"), "--labels", str(files / "labels.json"),
                       "--labels", str(files / "other.json"))
    assert (code, err) == (2, [
        "Error: 4 problems found in the input:",
        "- labels.json: question 'q9': claim_labels.question_id: expected a question answered by run 'r'; found no such result",
        "- labels.json: question 'q1': claim_labels.claim_id: expected a claim of the answer (c1); found 'c7'",
        "- labels.json: question 'q9': fact_labels.question_id: expected a question answered by run 'r'; found no such result",
        "- other.json: run: expected the name of a loaded run (r); found 'nope'",
    ])


def test_label_file_unknown_claim_and_unknown_fact_at_once(files: Path) -> None:
    # The claim label that names no claim is refused with the fact label's unknown fact (a
    # rule of the checks after loading), not alone, the second one shown only once it is fixed.
    write_json(files / "evalset.json", evalset_doc([question("q1", evidence=[["d1"]], facts=["f1"])]))
    human = {"kind": "human", "name": "h"}
    write_json(files / "labels.json", {
        "kind": "labels", "schema_version": 1, "run": "r",
        "claim_labels": [
            {"question_id": "q1", "claim_id": "c7", "label": {"verdict": "unsupported", "labeller": human}},
        ],
        "fact_labels": [
            {"question_id": "q1", "label": {"fact_id": "f1", "verdict": "covered", "labeller": human}},
            {"question_id": "q1", "label": {"fact_id": "f9", "verdict": "covered", "labeller": human}},
        ],
    })
    code, err = invoke(files, *_eval_args(files, "run.json"), "--labels", str(files / "labels.json"))
    assert (code, err) == (2, [
        "Error: 2 problems found in the input:",
        "- labels.json: question 'q1': claim_labels.claim_id: expected a claim of the answer (c1); found 'c7'",
        "- labels.json: question 'q1': fact_labels.fact_id: expected a reference fact of the question (f1); found 'f9'",
    ])


def test_effective_date_that_is_no_iso_date(files: Path) -> None:
    docs = [doc("d1", "alpha", effective_date="1 March 2026"), doc("d2", "beta", effective_date="2026-03")]
    write_json(files / "snapshot.json", snapshot_doc(docs))
    assert invoke(files, *_eval_args(files, "run.json")) == (2, [
        "Error: 1 problem found in the input:",
        "- snapshot.json: document 'd1': effective_date: expected an ISO date (YYYY-MM-DD, or YYYY-MM or YYYY); found '1 March 2026'",
    ])
    write_json(files / "snapshot.json", snapshot_doc([doc("d1", "alpha"), doc("d2", "beta")]))
    write_json(files / "versions.json", {"d2": {"effective_date": "2026-02-30"}})
    assert invoke(files, *_eval_args(files, "run.json"), "--versions", str(files / "versions.json")) == (2, [
        "Error: 1 problem found in the input:",
        "- versions.json: d2.effective_date: expected an ISO date (YYYY-MM-DD, or YYYY-MM or YYYY); found '2026-02-30'",
    ])


def test_ids_holding_control_characters(files: Path) -> None:
    # `sync\ndevices` drew as a line break in tables, as `sync devices` in Markdown
    docs = [doc("d1", "alpha", access_groups=["ops\x1b"]), doc("d2", "beta")]
    write_json(files / "snapshot.json", snapshot_doc(docs))
    write_json(files / "evalset.json", evalset_doc([question("sync\ndevices", evidence=[["d1"]])]))
    write_json(files / "run.json", run_doc("r\u0085", [result("sync\ndevices", ["d1"])]))
    assert invoke(files, *_eval_args(files, "run.json")) == (2, [
        "Error: 4 problems found in the input:",
        "- evalset.json: question 'sync\\ndevices': id: expected an identifier without control characters, not only whitespace; found 'sync\\ndevices'",
        "- snapshot.json: document 'd1': access_groups[0]: expected an identifier without control characters, not only whitespace; found 'ops\\x1b'",
        "- run.json: question 'sync\\ndevices': question_id: expected an identifier without control characters, not only whitespace; found 'sync\\ndevices'",
        "- run.json: name: expected an identifier without control characters, not only whitespace; found 'r\\x85'",
    ])


def test_chunk_rules(files: Path) -> None:
    chunks = [
        {"id": "d1", "document_id": "d1", "start": 0, "end": 2},
        {"id": "c1", "document_id": "nope", "start": 0, "end": 2},
        {"id": "c2", "document_id": "d1", "start": 3, "end": 99},
        {"id": "c3", "document_id": "d1", "start": 0, "end": 2, "text": "zz"},
        {"id": "c4", "document_id": "d2", "start": 0, "end": 2, "text": "be"},
        {"id": "c4", "document_id": "d2", "start": 0, "end": 2},
    ]
    write_json(files / "snapshot.json", snapshot_doc([doc("d1", "alpha"), doc("d2", "beta")], chunks=chunks))
    assert invoke(files, *_eval_args(files, "run.json")) == (2, [
        "Error: 5 problems found in the input:",
        "- snapshot.json: chunks[id=c4]: expected unique chunk IDs; found 'c4' more than once",
        "- snapshot.json: chunks[id=d1].id: expected a chunk ID distinct from every document ID; found 'd1'",
        "- snapshot.json: chunks[id=c1].document_id: expected the ID of a document in the snapshot; found 'nope'",
        "- snapshot.json: chunks[id=c2].start/end: expected 0 <= start < end <= 5 (the document's length); found start 3, end 99",
        "- snapshot.json: chunks[id=c3].text: expected the document's text over [start, end); found different text",
    ])


def _article(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schemaVersion": 1,
        "corpus": [{"id": "a", "text": "A."}, {"id": "b", "text": "B."}],
        "cases": [
            {"id": "c", "question": "Q?", "answerable": True, "requiredEvidenceIds": ["a"], "referenceFactIds": ["f"]},
        ],
        "runs": [{"name": "r", "results": [{
            "caseId": "c", "retrievedIds": ["a", "b"], "answer": "A.", "abstained": False,
            "claims": [{"text": "A", "citationIds": ["a"], "review": {"supportedByIds": ["a"]}}],
            "review": {"coveredReferenceFactIds": ["f"]},
        }]}],
    }
    data.update(changes)
    return data


def test_article_rules_use_the_article_field_names(tmp_path: Path) -> None:
    data = _article()
    data["cases"].append({"id": "u", "question": "U?", "answerable": False, "requiredEvidenceIds": ["a"], "referenceFactIds": []})
    data["cases"].append({"id": "n", "question": "N?", "answerable": True, "requiredEvidenceIds": ["a", "a"], "referenceFactIds": []})
    data["runs"][0]["results"][0]["review"]["coveredReferenceFactIds"] = ["f", "zz"]
    data["runs"][0]["results"][0]["retrievedIds"] = ["a", "nope"]
    write_json(tmp_path / "a.json", data)
    code, err = invoke(tmp_path, "evaluate", str(tmp_path / "a.json"))
    # The covered fact the case lacks comes with every other problem, those of case 'c' too.
    assert (code, err) == (2, [
        "Error: 7 problems found in the input:",
        "- a.json: question 'u': answerability: expected no required evidence and no reference facts for an unanswerable question; found 1 evidence group, 0 reference facts",
        "- a.json: question 'n': requiredEvidenceIds: expected no repeated ID; found 'a' more than once",
        "- a.json: question 'n': answerability: expected reference facts for an answerable question; found none",
        "- a.json: question 'c': runs[r].review.coveredReferenceFactIds: expected a reference fact of the case (f); found 'zz'",
        "- a.json: question 'u': runs[r].results: expected a result for every question (run 'r'; or --allow-missing); found no result",
        "- a.json: question 'n': runs[r].results: expected a result for every question (run 'r'; or --allow-missing); found no result",
        "- a.json: question 'c': runs[r].retrievedIds: expected IDs of documents or chunks in the snapshot; found 'nope'",
    ])
    data["runs"][0]["results"][0]["review"]["coveredReferenceFactIds"] = ["f"]
    write_json(tmp_path / "a.json", data)
    code, err = invoke(tmp_path, "evaluate", str(tmp_path / "a.json"))
    assert (code, err) == (2, [
        "Error: 6 problems found in the input:",
        "- a.json: question 'u': answerability: expected no required evidence and no reference facts for an unanswerable question; found 1 evidence group, 0 reference facts",
        "- a.json: question 'n': requiredEvidenceIds: expected no repeated ID; found 'a' more than once",
        "- a.json: question 'n': answerability: expected reference facts for an answerable question; found none",
        "- a.json: question 'u': runs[r].results: expected a result for every question (run 'r'; or --allow-missing); found no result",
        "- a.json: question 'n': runs[r].results: expected a result for every question (run 'r'; or --allow-missing); found no result",
        "- a.json: question 'c': runs[r].retrievedIds: expected IDs of documents or chunks in the snapshot; found 'nope'",
    ])


def test_an_article_result_for_an_unknown_case_names_case_id(tmp_path: Path) -> None:
    data = _article()
    data["runs"][0]["results"].append({**data["runs"][0]["results"][0], "caseId": "cc"})
    write_json(tmp_path / "a.json", data)
    assert invoke(tmp_path, "evaluate", str(tmp_path / "a.json")) == (2, [
        "Error: 1 problem found in the input:",
        "- a.json: question 'cc': runs[r].results.caseId: expected a question of the evaluation "
        "set; found no such question",
    ])


# --- k ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["0", "-1", "1.5", "nan", "inf", "-inf", "abc", "", "1e3"])
def test_cli_k_refused(files: Path, raw: str) -> None:
    out = CliRunner().invoke(cli, [*_eval_args(files, "run.json"), "-k", raw])
    assert out.exit_code == 2
    assert out.stderr.splitlines()[-1] == (
        f"Error: Invalid value for '-k': <command line>: -k: expected an integer from 1 to 10000; found {raw!r}"
    )
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("raw", [0, -1, 1.5, math.nan, math.inf, -math.inf, True, "0", "x", " -3 ", [3], None])
def test_parse_k_refuses(raw: Any) -> None:
    with pytest.raises(InputError) as caught:
        parse_k(raw)
    assert str(caught.value) == (
        "1 problem found in the input:\n"
        f"- <command line>: -k: expected an integer from 1 to 10000; found {raw!r}"
    )


@pytest.mark.parametrize(("raw", "value"), [(1, 1), (3.0, 3), ("7", 7), (" 12 ", 12), ("+2", 2)])
def test_parse_k_accepts(raw: Any, value: int) -> None:
    assert parse_k(raw) == value


SNAPSHOT_NO_DOCS = '{"kind": "snapshot", "schema_version": 1, "snapshot_id": "s"}'
RUN_HEAD = '{"kind": "run", "schema_version": 1, "name": "r"}\n'
FILE_CASES = [
    # (file name, bytes, where it is passed, expected problem line)
    ("top.json", b"[1, 2]", "dataset", "- top.json: (top level): expected a JSON object; found [1, 2]"),
    ("nodocs.json", SNAPSHOT_NO_DOCS.encode(), "snapshot", "- nodocs.json: documents: expected a value (required field); found nothing"),
    ("empty.jsonl", b"", "run", "- empty.jsonl: line 1: expected a header line with kind and schema_version; found an empty file"),
    ("badhead.jsonl", b"{bad\n", "run", "- badhead.jsonl: line 1 column 2: expected valid JSON; found a key not in double quotes, or a comma before a closing brace"),
    ("kind.jsonl", b'{"kind": "thing", "schema_version": 1}\n', "run", "- kind.jsonl: line 1: kind: expected one of snapshot, evalset, run, labels; found 'thing'"),
    # a header line that is no object, or has no kind, is named as such (it was 'found null')
    ("list-head.jsonl", b'[]\n' + RUN_HEAD.encode(), "run", "- list-head.jsonl: line 1: expected a header line with kind and schema_version; found []"),
    ("no-kind.jsonl", b'{"schema_version": 1}\n', "snapshot", "- no-kind.jsonl: line 1: kind: expected one of snapshot, evalset, run, labels; found nothing"),
    # a missing version is 'nothing', as a missing kind is (it was found 'nothing', quoted)
    ("no-version.jsonl", b'{"kind": "run", "name": "r"}\n', "run", "- no-version.jsonl: line 1: schema_version: expected 1; found nothing"),
    ("version.jsonl", b'{"kind": "run", "schema_version": 3, "name": "r"}\n', "run", "- version.jsonl: line 1: schema_version: expected 1; found 3"),
    # true and 1.0 equal 1 in Python, but are not the version 1
    ("version-true.jsonl", b'{"kind": "run", "schema_version": true, "name": "r"}\n', "run", "- version-true.jsonl: line 1: schema_version: expected 1; found true"),
    ("version-float.json", SNAPSHOT_NO_DOCS.replace('"schema_version": 1', '"schema_version": 1.0').replace("}", ', "documents": []}').encode(), "snapshot", "- version-float.json: schema_version: expected 1; found 1.0"),
    ("version-true.json", b'{"kind": "evalset", "schema_version": true, "evalset_id": "e", "questions": []}', "dataset", "- version-true.json: schema_version: expected 1; found true"),
    # a JSONL header's problems name its line, whatever the file's kind
    ("evalset-head.jsonl", b'{"kind": "evalset", "schema_version": 1, "evalset_id": 5}\n{"id": "q1", "text": "?", "answerability": "unanswerable"}\n', "dataset", "- evalset-head.jsonl: line 1: evalset_id: expected a valid string; found 5"),
    ("snapshot-head.jsonl", b'{"kind": "snapshot", "schema_version": 1, "snapshot_id": "s", "extra": 1}\n', "snapshot", "- snapshot-head.jsonl: line 1: extra: expected no such field (it is not part of the format); found an unknown field"),
    ("bytes.jsonl", RUN_HEAD.encode() + b"\xff\n", "run", "- bytes.jsonl: line 2 column 1: expected UTF-8 text; found the byte 0xFF, which is not UTF-8 (is the file GBK, Latin-1 or UTF-16?); convert it to UTF-8, e.g. `iconv -f GBK -t UTF-8 bytes.jsonl > bytes.utf8.jsonl`"),
    ("evalset-as-run.json", None, "run", "- evalset-as-run.json: kind: expected run; found 'evalset'"),
    ("evalset-as-snapshot.json", None, "snapshot", "- evalset-as-snapshot.json: kind: expected snapshot; found 'evalset'"),
    # a file of another kind is named by its kind alone, not checked field by field against
    # the format of the kind it claims
    ("run-said-snapshot.jsonl", RUN_HEAD.replace('"run"', '"snapshot"', 1).encode() + b'{"question_id": "q1"}\n', "run", "- run-said-snapshot.jsonl: line 1: kind: expected run; found 'snapshot'"),
    ("run-said-labels.json", b'{"kind": "labels", "schema_version": 1, "name": "r", "results": []}', "run", "- run-said-labels.json: kind: expected run; found 'labels'"),
    ("run-as-dataset.json", b'{"kind": "run", "schema_version": 1, "name": "r"}', "dataset", "- run-as-dataset.json: kind: expected an evaluation set or an article-format file; found 'run'"),
    ("article-as-run.json", b'{"schemaVersion": 1}', "run", "- article-as-run.json: kind: expected run; found 'article'"),
]


@pytest.mark.parametrize(("name", "content", "role", "line"), FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_file_problems(files: Path, name: str, content: bytes | None, role: str, line: str) -> None:
    path = files / name
    if content is None:
        path.write_bytes((files / "evalset.json").read_bytes())
    else:
        path.write_bytes(content)
    snapshot = path if role == "snapshot" else files / "snapshot.json"
    dataset = path if role == "dataset" else files / "evalset.json"
    args = ["evaluate", str(dataset), "--snapshot", str(snapshot), "--run", str(path if role == "run" else files / "run.json")]
    assert invoke(files, *args) == (2, ["Error: 1 problem found in the input:", line])


def test_directory_instead_of_a_file(files: Path) -> None:
    (files / "adir").mkdir()
    assert invoke(files, *_eval_args(files, "adir")) == (2, [
        "Error: 1 problem found in the input:",
        "- adir: (file): expected a regular file; found a directory",
    ])


def test_article_file_takes_no_snapshot(files: Path) -> None:
    write_json(files / "a.json", _article())
    assert invoke(files, "evaluate", str(files / "a.json"), "--snapshot", str(files / "snapshot.json")) == (2, [
        "Error: 1 problem found in the input:",
        "- snapshot.json: --snapshot: expected no snapshot option for an article-format file (its corpus is the snapshot); found a snapshot file",
    ])


@pytest.mark.parametrize(
    ("count", "text"), [(0, "0 runs"), (1, "1 run"), (2, "2 runs"), (11, "11 runs")]
)
def test_a_count_is_written_with_its_noun_plural_unless_one(count: int, text: str) -> None:
    from ragtriage.errors import counted

    assert counted(count, "run") == text


def test_compare_of_one_run_names_one_run(files: Path) -> None:
    assert invoke(files, "compare", *_eval_args(files, "run.json")[1:]) == (2, [
        "Error: 1 problem found in the input:",
        "- <command line>: RUNS: expected at least two runs to compare; found 1 run",
    ])


def test_negative_latencies_and_cost_are_refused_together(files: Path) -> None:
    data = json.loads((files / "run.json").read_text(encoding="utf-8"))
    data["results"][0] |= {"latency_ms": -1, "stage_latency_ms": {"retrieval": -2.5}, "cost_usd": -3}
    write_json(files / "run.json", data)
    assert invoke(files, *_eval_args(files, "run.json")) == (2, [
        "Error: 3 problems found in the input:",
        "- run.json: question 'q1': latency_ms: expected greater than or equal to 0; found -1",
        "- run.json: question 'q1': stage_latency_ms.retrieval: expected greater than or equal to 0; found -2.5",
        "- run.json: question 'q1': cost_usd: expected greater than or equal to 0; found -3",
    ])


@pytest.mark.parametrize("jsonl", [False, True])
def test_texts_of_only_whitespace_are_refused_as_empty_ones_are(files: Path, jsonl: bool) -> None:
    """A question's, a claim's and a canary's texts: whitespace alone is no text (an empty one
    is refused too); both readers refuse them, every problem at once."""
    evalset = json.loads((files / "evalset.json").read_text(encoding="utf-8"))
    evalset["questions"][0] |= {
        "text": "  \t", "canary": {"document_id": "d1", "instruction": "alpha", "marker": " "},
    }
    evalset["questions"].append({**question("q2", evidence=[["d2"]]), "text": ""})
    run = json.loads((files / "run.json").read_text(encoding="utf-8"))
    run["results"][0]["claims"][0]["text"] = "\u00a0\n"
    run["results"].append(result("q2", ["d2"], context=["d2"], claims=[claim("ok", ["d2"], "supported", ["d2"])]))
    if jsonl:
        for name, data, key in (("evalset", evalset, "questions"), ("run", run, "results")):
            lines = [{k: v for k, v in data.items() if k != key}, *data[key]]
            (files / f"{name}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
        args = ["evaluate", str(files / "evalset.jsonl"), "--snapshot", str(files / "snapshot.json"),
                "--run", str(files / "run.jsonl")]
        where = {"evalset": "evalset.jsonl: question 'q1': line 2: ", "q2": "evalset.jsonl: question 'q2': line 3: ",
                 "run": "run.jsonl: question 'q1': line 2: claims[c1].text"}
    else:
        write_json(files / "evalset.json", evalset)
        write_json(files / "run.json", run)
        args = _eval_args(files, "run.json")
        where = {"evalset": "evalset.json: question 'q1': ", "q2": "evalset.json: question 'q2': ",
                 "run": "run.json: question 'q1': claims[c1].text"}
    assert invoke(files, *args) == (2, [
        "Error: 4 problems found in the input:",
        f"- {where['evalset']}text: expected a string that is not only whitespace; found '  \\t'",
        f"- {where['evalset']}canary.marker: expected a string that is not only whitespace; found ' '",
        f"- {where['q2']}text: expected a non-empty string; found an empty string",
        f"- {where['run']}: expected a string that is not only whitespace; found '\\xa0\\n'",
    ])
