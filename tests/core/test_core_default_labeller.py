"""A labels file's default `labeller`: used by every label that names none, in JSON and JSONL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from core_builders import claim, doc, question, result, run_doc, write_files, write_json

from ragtriage.cli.main import cli
from ragtriage.errors import InputError
from ragtriage.loading import load_dataset
from ragtriage.schemas import LabelSet
from ragtriage.schemas._json_schema import json_schema

MEI = {"kind": "human", "name": "mei"}
JUDGE = {"kind": "judge", "name": "judge-model", "prompt_version": "p1"}


def _files(tmp_path: Path) -> list[str]:
    """One answered question with two unlabelled claims and one reference fact."""
    answered = result(
        "q1",
        ["d1"],
        context=["d1"],
        claims=[{**claim("a", ["d1"], None), "id": "a"}, {**claim("b", ["d1"], None), "id": "b"}],
    )
    return write_files(
        tmp_path,
        [doc("d1", "alpha")],
        [question("q1", evidence=[["d1"]], facts=["f1"])],
        {"run": [answered]},
    )


def _entries() -> dict[str, list[dict[str, Any]]]:
    return {
        "claim_labels": [
            {"question_id": "q1", "claim_id": "a",
             "label": {"verdict": "supported", "supported_by": ["d1"]}},
            {"question_id": "q1", "claim_id": "b",
             "label": {"verdict": "unsupported", "labeller": JUDGE}},
        ],
        "fact_labels": [{"question_id": "q1", "label": {"fact_id": "f1", "verdict": "covered"}}],
    }


def _write(tmp_path: Path, suffix: str, head: dict[str, Any]) -> Path:
    path = tmp_path / f"labels.{suffix}"
    entries = _entries()
    if suffix == "json":
        write_json(path, {**head, **entries})
    else:
        lines = [head, *entries["claim_labels"], *entries["fact_labels"]]
        path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


HEAD = {"schema_version": 1, "kind": "labels", "run": "run"}


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
def test_labels_without_a_labeller_take_the_files(tmp_path: Path, suffix: str) -> None:
    args = _files(tmp_path)
    labels = _write(tmp_path, suffix, {**HEAD, "labeller": MEI})
    loaded = load_dataset(args[0], snapshot=args[2], runs=[args[4]], labels=[labels])
    res = loaded.runs[0].results[0]
    assert [(lab.labeller.kind, lab.labeller.name) for c in res.claims or [] for lab in c.labels] == [
        ("human", "mei"),
        ("judge", "judge-model"),
    ]
    assert [lab.labeller.name for lab in res.fact_labels] == ["mei"]
    out = CliRunner().invoke(cli, ["evaluate", *args, "--labels", str(labels), "--format", "json"])
    assert (out.exit_code, out.stderr) == (0, "")
    run = json.loads(out.stdout)["runs"][0]
    assert run["label_sources"]["claim_support"]["human"] == 1
    assert run["summary"]["claim_support"]["numerator"] == 1


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
def test_a_label_without_a_labeller_and_no_default_is_refused(tmp_path: Path, suffix: str) -> None:
    args = _files(tmp_path)
    labels = _write(tmp_path, suffix, HEAD)
    out = CliRunner().invoke(cli, ["evaluate", *args, "--labels", str(labels)])
    assert out.exit_code == 2
    line = {"json": "claim_labels[a].", "jsonl": "line 2: "}[suffix]
    fact_line = {"json": "fact_labels[f1].", "jsonl": "line 4: "}[suffix]
    expected = (
        "expected a labeller (on the label, or `labeller` at the top of the file for every "
        "label that names none); found nothing"
    )
    assert out.stderr.splitlines() == [
        "Error: 2 problems found in the input:",
        f"- {labels}: question 'q1': {line}label.labeller: {expected}",
        f"- {labels}: question 'q1': {fact_line}label.labeller: {expected}",
    ]


def test_a_bad_default_labeller_is_reported_once(tmp_path: Path) -> None:
    args = _files(tmp_path)
    labels = _write(tmp_path, "json", {**HEAD, "labeller": {"kind": "robot", "name": "x"}})
    out = CliRunner().invoke(cli, ["evaluate", *args, "--labels", str(labels)])
    assert out.exit_code == 2
    problems = out.stderr.splitlines()[1:]
    assert problems[-1] == (
        f"- {labels}: labeller.kind: expected 'human' or 'judge'; found 'robot'"
    )
    assert len(problems) == 3  # the two labels without a labeller, then the default itself


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
@pytest.mark.parametrize(
    ("default", "expected"),
    [
        ({"kind": "judge", "name": "j"}, "expected the judge's prompt version; found nothing"),
        ({**MEI, "prompt_version": "p1"}, "expected none for a human labeller (a prompt version"
         " is a judge's: kind judge); found 'p1'"),
    ],
)
def test_a_default_labeller_no_label_takes_is_checked_as_a_labels(
    tmp_path: Path, suffix: str, default: dict[str, Any], expected: str
) -> None:
    # the schema refuses such a file; the loader accepted it when every label named its own
    args = _files(tmp_path)
    path = tmp_path / f"labels.{suffix}"
    entries = _entries()
    for entry in [*entries["claim_labels"], *entries["fact_labels"]]:
        entry["label"].setdefault("labeller", MEI)
    head = {**HEAD, "labeller": default}
    if suffix == "json":
        write_json(path, {**head, **entries})
    else:
        lines = [head, *entries["claim_labels"], *entries["fact_labels"]]
        path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = CliRunner().invoke(cli, ["evaluate", *args, "--labels", str(path)])
    assert (out.exit_code, out.stderr.splitlines()) == (2, [
        "Error: 1 problem found in the input:",
        f"- {path}: labeller.prompt_version: {expected}",
    ])


def test_the_model_fills_in_the_default_too() -> None:
    labels = LabelSet.model_validate({**HEAD, "labeller": MEI, **_entries()})
    assert [e.label.labeller.name for e in labels.claim_labels] == ["mei", "judge-model"]
    assert labels.fact_labels[0].label.labeller.name == "mei"


def test_the_labels_schema_says_the_labeller_may_be_left_out() -> None:
    schema = json_schema("labels")
    assert schema["properties"]["labeller"]["anyOf"][0] == {"$ref": "#/$defs/Labeller"}
    for name in ("ClaimLabel", "FactLabel"):
        assert "labeller" not in schema["$defs"][name]["required"]
    assert "labeller" in json_schema("run")["$defs"]["ClaimLabel"]["required"]


def test_leaving_questions_out_keeps_where_each_label_came_from(tmp_path: Path) -> None:
    # keep_questions rebuilt the dataset without its label files: a label's problem would
    # then have named its run's file instead of the labels file it came from.
    from ragtriage.holdout import keep_questions

    args = _files(tmp_path)
    labels = _write(tmp_path, "json", {**HEAD, "labeller": MEI})
    loaded = load_dataset(args[0], snapshot=args[2], runs=[args[4]], labels=[labels])
    kept = keep_questions(loaded, lambda q: q.id != "q1")
    assert [q.id for q in kept.evalset.questions] == []
    assert kept.label_files == loaded.label_files
    assert kept.label_file(("run", "q1", "a", 0)) == str(labels)


ANA = {"kind": "human", "name": "ana"}


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
def test_one_labeller_labelling_an_item_twice_is_refused(tmp_path: Path, suffix: str) -> None:
    # mei labels claim a and fact f1 twice (the default labeller, then by name): refused by
    # both engines of evaluate and by calibrate, rather than merged to cannot_judge. Two
    # reviewers disagreeing on claim b (mei and ana) stays a merge.
    from loader_path import loader_path

    args = _files(tmp_path)
    entries = _entries()
    entries["claim_labels"][1]["label"]["labeller"] = ANA
    entries["claim_labels"] += [
        {"question_id": "q1", "claim_id": "a",
         "label": {"verdict": "unsupported", "labeller": MEI}},
        {"question_id": "q1", "claim_id": "b", "label": {"verdict": "supported",
                                                         "supported_by": ["d1"]}},
    ]
    entries["fact_labels"] += [
        {"question_id": "q1", "label": {"fact_id": "f1", "verdict": "cannot_judge"}}
    ]
    labels = tmp_path / f"labels.{suffix}"
    head = {**HEAD, "labeller": MEI}

    def write() -> None:
        if suffix == "json":
            write_json(labels, {**head, **entries})
        else:
            lines = [head, *entries["claim_labels"], *entries["fact_labels"]]
            labels.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")

    write()
    refused = [
        "Error: 2 problems found in the input:",
        f"- {labels}: question 'q1': claim_labels[a]: expected one label by each labeller for a "
        "claim; found labelled more than once by mei",
        f"- {labels}: question 'q1': fact_labels[f1]: expected one label by each labeller for a "
        "reference fact; found labelled more than once by mei",
    ]
    evaluate = ["evaluate", *args, "--labels", str(labels)]
    with loader_path():
        loaded = CliRunner().invoke(cli, evaluate)
    read = CliRunner().invoke(cli, evaluate)
    judge = tmp_path / "judge.json"
    write_json(judge, {**HEAD, "labeller": JUDGE, "claim_labels": entries["claim_labels"][:1]})
    calibrated = CliRunner().invoke(
        cli, ["calibrate", "--judge-labels", str(judge), "--human-labels", str(labels)]
    )
    for out in (loaded, read, calibrated):
        assert (out.exit_code, out.stderr.splitlines()) == (2, refused)
    del entries["claim_labels"][2], entries["fact_labels"][1]
    write()
    out = CliRunner().invoke(cli, [*evaluate, "--format", "json"])
    assert (out.exit_code, out.stderr) == (0, "")
    summary = json.loads(out.stdout)["runs"][0]["summary"]["claim_support"]
    assert (summary["numerator"], summary["denominator"], summary["cannot_judge"]) == (1, 1, 1)


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
def test_one_labeller_labelling_an_item_twice_in_a_run_is_refused(
    tmp_path: Path, suffix: str
) -> None:
    # In the run's own labels mei labels claim a twice and the judge fact f1 twice: refused by
    # load_dataset and by both readers of evaluate, as in a label file, rather than merged to
    # cannot_judge. A label given in the run and again in a label file is taken, and two
    # reviewers disagreeing on claim b (mei and ana) stays a merge.
    from loader_path import READERS, invoke

    a = {**claim("a", ["d1"], "supported", ["d1"], MEI), "id": "a"}
    b = {**claim("b", ["d1"], "supported", ["d1"], MEI), "id": "b"}
    b["labels"].append({"verdict": "unsupported", "labeller": ANA})
    fact = {"fact_id": "f1", "verdict": "covered", "labeller": JUDGE}
    twice = [
        {"verdict": "unsupported", "labeller": MEI},
        {"fact_id": "f1", "verdict": "not_covered", "labeller": JUDGE},
    ]
    args = _files(tmp_path)
    run = tmp_path / f"run.{suffix}"
    args[4] = str(run)

    def write(repeated: bool) -> None:
        answered = result("q1", ["d1"], context=["d1"], claims=[a, b], fact_labels=[fact])
        if repeated:
            answered["claims"][0] = {**a, "labels": [*a["labels"], twice[0]]}
            answered["fact_labels"] = [fact, twice[1]]
        doc = run_doc("run", [answered])
        if suffix == "json":
            write_json(run, doc)
        else:
            lines = [{k: v for k, v in doc.items() if k != "results"}, answered]
            run.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")

    write(True)
    problems = [
        f"{run}: question 'q1': claims[a].labels: expected one label by each labeller for a "
        "claim; found labelled more than once by mei",
        f"{run}: question 'q1': fact_labels[f1]: expected one label by each labeller for a "
        "reference fact; found labelled more than once by judge-model (prompt p1)",
    ]
    with pytest.raises(InputError) as refused:
        load_dataset(args[0], snapshot=args[2], runs=[run])
    assert [p.message() for p in refused.value.problems] == problems
    evaluate = ["evaluate", *args]
    for reader in READERS:
        out = invoke(reader, evaluate)
        assert (out.exit_code, out.stderr.splitlines()) == (
            2, ["Error: 2 problems found in the input:", *(f"- {p}" for p in problems)]
        ), reader
    write(False)
    labels = tmp_path / "labels.json"
    write_json(labels, {**HEAD, "claim_labels": [
        {"question_id": "q1", "claim_id": "a", "label": a["labels"][0]}
    ], "fact_labels": [{"question_id": "q1", "label": fact}]})
    reports = [invoke(r, [*evaluate, "--labels", str(labels), "--format", "json"]) for r in READERS]
    assert [(out.exit_code, out.stderr) for out in reports] == [(0, ""), (0, "")]
    assert reports[1].stdout == reports[0].stdout
    summary = json.loads(reports[0].stdout)["runs"][0]["summary"]["claim_support"]
    assert (summary["numerator"], summary["denominator"], summary["cannot_judge"]) == (1, 1, 1)
