"""Messages that point at the fix: "did you mean", claims by ID, a forgotten --labels, unused k.

Every message is pinned in full; `{d}` stands for the temporary folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from core_builders import claim, doc, question, result, run_doc, write_files, write_json

from loader_path import READERS, invoke
from ragtriage.cli.main import cli
from ragtriage.columnar import evaluate_native
from ragtriage.errors import InputError, did_you_mean

DOCS = [doc("d-reset", "how to reset"), doc("d-refund", "refund rules")]
QUESTIONS = [question("q1", evidence=[["d-reset"]], facts=["f1"]), question("q2", "unanswerable")]


def _good(qid: str = "q1", **extra: Any) -> dict[str, Any]:
    return result(
        qid,
        ["d-reset"],
        context=["d-reset"],
        claims=[claim("reset it", ["d-reset"], "supported", ["d-reset"])],
        covered=["f1"],
        **extra,
    )


def _refusal() -> dict[str, Any]:
    return result("q2", ["d-refund"], context=["d-refund"], outcome="refused", answer="no")


def _evaluate(tmp_path: Path, runs: dict[str, list[dict[str, Any]]], *extra: str) -> Any:
    args = write_files(tmp_path, DOCS, QUESTIONS, runs)
    out = CliRunner().invoke(cli, ["evaluate", *args, *extra])
    return out.exit_code, out.stdout, out.stderr.replace(str(tmp_path), "{d}")


def test_did_you_mean_picks_the_closest_name_or_none() -> None:
    assert did_you_mean("d-rest", ["d-refund", "d-reset"]) == " (did you mean 'd-reset'?)"
    assert did_you_mean("anwser", ["answer", "outcome"]) == " (did you mean 'answer'?)"
    assert did_you_mean("zzz", ["answer", "outcome"]) == ""
    assert did_you_mean("", ["answer"]) == ""


def test_a_mistyped_document_id_gets_a_suggestion(tmp_path: Path) -> None:
    bad = _good()
    bad["candidates"] = [{"id": "d-rest"}]
    code, _, stderr = _evaluate(tmp_path, {"run": [bad, _refusal()]})
    assert code == 2
    assert stderr.splitlines()[1:] == [
        "- {d}/run.json: question 'q1': candidates: expected IDs of documents or chunks in the "
        "snapshot; found 'd-rest' (did you mean 'd-reset'?)",
    ]


def test_the_file_reader_gives_the_same_suggestion(tmp_path: Path) -> None:
    bad = _good()
    bad["candidates"] = [{"id": "d-rest"}]
    args = write_files(tmp_path, DOCS, QUESTIONS, {"run": [bad, _refusal()]})
    with pytest.raises(InputError) as caught:
        evaluate_native(args[0], args[2], [args[4]])
    assert [p.message() for p in caught.value.problems] == [
        f"{tmp_path}/run.json: question 'q1': candidates: expected IDs of documents or chunks "
        "in the snapshot; found 'd-rest' (did you mean 'd-reset'?)",
    ]


def test_mistyped_evidence_and_question_ids_get_suggestions(tmp_path: Path) -> None:
    questions = [question("q1", evidence=[["d-rset"]]), question("q2", "unanswerable")]
    write_json(tmp_path / "snapshot.json", {"schema_version": 1, "kind": "snapshot",
                                            "snapshot_id": "s", "documents": DOCS})
    write_json(tmp_path / "evalset.json", {"schema_version": 1, "kind": "evalset",
                                           "evalset_id": "e", "questions": questions})
    other = _refusal()
    other["question_id"] = "q22"
    write_json(tmp_path / "run.json", run_doc("run", [_good(), _refusal(), other]))
    out = CliRunner().invoke(cli, ["evaluate", str(tmp_path / "evalset.json"), "--snapshot",
                                   str(tmp_path / "snapshot.json"), "--run",
                                   str(tmp_path / "run.json")])
    assert out.exit_code == 2
    lines = out.stderr.replace(str(tmp_path), "{d}").splitlines()
    assert lines[1:3] == [
        "- {d}/evalset.json: question 'q1': required_evidence[0]: expected IDs of documents or "
        "chunks in the snapshot; found 'd-rset' (did you mean 'd-reset'?)",
        "- {d}/run.json: question 'q22': results.question_id: expected a question of the "
        "evaluation set; found no such question (did you mean 'q2'?)",
    ]


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
def test_a_mistyped_field_gets_a_suggestion_and_claims_are_named_by_id(
    tmp_path: Path, suffix: str
) -> None:
    first = _good()
    first["anwser"] = first.pop("answer")
    first["claims"] = [
        {**claim("one", ["d-reset"], "supported", ["d-reset"]), "id": "reset-1"},
        {"citations": ["d-reset"], "labels": [], "txt": "two"},
    ]
    path = tmp_path / f"run.{suffix}"
    if suffix == "json":
        write_json(path, run_doc("run", [first, _refusal()]))
    else:
        head = {k: v for k, v in run_doc("run", []).items() if k != "results"}
        lines = [json.dumps(head), json.dumps(first), json.dumps(_refusal())]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_files(tmp_path, DOCS, QUESTIONS, {})
    out = CliRunner().invoke(cli, ["evaluate", str(tmp_path / "evalset.json"), "--snapshot",
                                   str(tmp_path / "snapshot.json"), "--run", str(path)])
    where = f"{path}: question 'q1': " + ("line 2: " if suffix == "jsonl" else "")
    assert out.exit_code == 2
    assert out.stderr.splitlines()[1:] == [
        f"- {where}claims[c2].text: expected a value (required field); found nothing",
        f"- {where}claims[c2].txt: expected no such field (it is not part of the format); "
        "found an unknown field (did you mean 'text'?)",
        f"- {where}anwser: expected no such field (it is not part of the format); "
        "found an unknown field (did you mean 'answer'?)",
    ]


def test_a_claim_with_an_id_is_named_by_it_in_schema_errors(tmp_path: Path) -> None:
    first = _good()
    first["claims"] = [{**claim("one", ["d-reset"], "maybe", []), "id": "reset-1"}]
    code, _, stderr = _evaluate(tmp_path, {"run": [first, _refusal()]})
    assert code == 2
    assert stderr.splitlines()[1].startswith(
        "- {d}/run.json: question 'q1': claims[reset-1].labels[0].verdict: expected "
    )


def _unlabelled() -> dict[str, Any]:
    return result("q1", ["d-reset"], context=["d-reset"],
                  claims=[claim("a", ["d-reset"], None), claim("b", ["d-reset"], None)])


def test_a_run_without_any_label_gets_one_message(tmp_path: Path) -> None:
    runs = {"base": [_unlabelled(), _refusal()], "labelled": [_good(), _refusal()]}
    code, _, stderr = _evaluate(tmp_path, runs)
    assert code == 2
    assert stderr.splitlines() == [
        "Error: 1 problem found in the input:",
        "- {d}/base.json: labels: expected a review label for every claim and reference fact "
        "of an answer (in the run or a --labels FILE; or --allow-unreviewed); found no labels "
        "for run 'base' (3 claims and reference facts without one): did you forget --labels "
        "FILE?",
    ]


def test_a_run_with_some_labels_keeps_the_messages_per_claim(tmp_path: Path) -> None:
    partly = _unlabelled()
    partly["fact_labels"] = _good()["fact_labels"]
    code, _, stderr = _evaluate(tmp_path, {"run": [partly, _refusal()]})
    assert code == 2
    assert stderr.splitlines()[1:] == [
        f"- {{d}}/run.json: question 'q1': claims[{cid}].labels: expected a review label "
        "(human-first) for every claim (or --allow-unreviewed); found no label"
        for cid in ("c1", "c2")
    ]


def _recorded_k(tmp: Path) -> list[str]:
    """The `evaluate` arguments of a run with provenance.k 2 whose results record no context."""
    results = [
        result("q1", ["d-reset"], claims=[claim("reset it", ["d-reset"], "supported", ["d-reset"])],
               covered=["f1"]),
        result("q2", ["d-refund"], outcome="refused", answer="no"),
    ]
    args = write_files(tmp, DOCS, QUESTIONS, {"run": results})
    write_json(tmp / "run.json", run_doc("run", results, k=2))
    return args


def test_a_k_other_than_the_runs_provenance_k_is_said_on_stderr(tmp_path: Path) -> None:
    # -k overrides a run's recorded provenance.k; before, it did so without a word.
    args = _recorded_k(tmp_path)
    stderrs = [CliRunner().invoke(cli, ["evaluate", *args, *k]).stderr for k in
               (["-k", "1"], ["-k", "2"], [])]
    assert stderrs == ["note: -k 1 is used for run 'run' in place of its provenance.k 2\n", "", ""]


def test_a_k_that_no_result_uses_is_said_on_stderr_and_in_the_header(tmp_path: Path) -> None:
    runs = {"run": [_good(), _refusal()]}
    code, table, stderr = _evaluate(tmp_path, runs, "-k", "10000")
    assert code == 0
    assert stderr == (
        "note: -k 10000 is not used for run 'run': every result records its context\n"
    )
    assert "run (context recorded, k not used)" in table
    assert "k=10000" not in table
    _, markdown, _ = _evaluate(tmp_path, runs, "-k", "10000", "--format", "markdown")
    assert "Runs: `run` (context recorded, k not used, evidence matched by document)." in markdown
    _, text, _ = _evaluate(tmp_path, runs, "-k", "10000", "--format", "json")
    data = json.loads(text)["runs"][0]
    assert (data["k"], data["k_used"]) == (10000, False)
    diagnosed = CliRunner().invoke(
        cli, ["diagnose", *write_files(tmp_path, DOCS, QUESTIONS, runs), "-k", "9",
              "--format", "markdown"]
    )
    assert "### run (context recorded, k not used, evidence matched by document)" in (
        diagnosed.stdout
    )


@pytest.mark.parametrize("reader", READERS)
def test_a_k_with_no_question_scored_is_not_used(tmp_path: Path, reader: str) -> None:
    # No result records its context, so -k 1 would cut their rankings; but the selection keeps
    # no question (none has the stage). Before, the note said -k 1 was used in place of the
    # provenance.k 2, and k_used was true.
    args = _recorded_k(tmp_path)
    chosen = [*args, "-k", "1", "--stage", "needless_escalation"]
    note = "note: -k 1 is not used for run 'run': no question is scored\n"
    table = invoke(reader, ["evaluate", *chosen])
    assert (table.exit_code, table.stderr) == (0, note)
    assert "run (no question scored, k not used)" in table.stdout
    markdown = invoke(reader, ["evaluate", *chosen, "--format", "markdown"]).stdout
    assert "Runs: `run` (no question scored, k not used, evidence matched by document)." in (
        markdown
    )
    data = json.loads(invoke(reader, ["evaluate", *chosen, "--format", "json"]).stdout)
    assert (data["runs"][0]["k"], data["runs"][0]["k_used"], data["runs"][0]["questions"]) == (
        1, False, []
    )
    diagnosed = invoke(reader, ["diagnose", *chosen, "--format", "json"])
    assert (diagnosed.stderr, json.loads(diagnosed.stdout)["runs"][0]["k_used"]) == (note, False)
    page = tmp_path / "page.html"
    assert invoke(reader, ["report", *chosen, "-o", str(page)]).exit_code == 0
    assert "<td>not used (no question scored)</td>" in page.read_text(encoding="utf-8")
    # With the question kept, -k 1 cuts its ranking.
    kept = invoke(reader, ["evaluate", *args, "-k", "1", "--format", "json"])
    assert kept.stderr == "note: -k 1 is used for run 'run' in place of its provenance.k 2\n"
    assert json.loads(kept.stdout)["runs"][0]["k_used"] is True


def test_a_run_recorded_against_other_inputs_is_warned_of(tmp_path: Path) -> None:
    """A run whose provenance names another snapshot or evaluation set than the files given is
    scored (its IDs read against them) with a warning per field; a matching one is not."""
    args = write_files(tmp_path, DOCS, QUESTIONS, {"run": [_good(), _refusal()]})
    run = json.loads((tmp_path / "run.json").read_text("utf-8"))
    run["provenance"].update(snapshot_id="s-old", evalset_id="e")
    write_json(tmp_path / "run.json", run)
    out = CliRunner().invoke(cli, ["evaluate", *args])
    assert (out.exit_code, out.stderr) == (
        0, "warning: run 'run' records snapshot_id 's-old'; it was scored against 's'\n"
    )
    run["provenance"].update(snapshot_id="s", evalset_id="e-2")
    write_json(tmp_path / "run.json", run)
    out = CliRunner().invoke(cli, ["evaluate", *args, "--format", "json"])
    assert (out.exit_code, out.stderr) == (
        0, "warning: run 'run' records evalset_id 'e-2'; it was scored against 'e'\n"
    )


@pytest.mark.parametrize("jsonl", [False, True])
def test_an_evalset_recorded_against_another_snapshot_is_warned_of(
    tmp_path: Path, jsonl: bool
) -> None:
    """The evaluation set's own `snapshot_id` is read as a run's provenance is: another one
    than the snapshot given is scored with a warning (before the runs'), the same one is not."""
    args = write_files(tmp_path, DOCS, QUESTIONS, {"run": [_good(), _refusal()]})
    evalset = json.loads((tmp_path / "evalset.json").read_text("utf-8"))
    run = json.loads((tmp_path / "run.json").read_text("utf-8"))
    run["provenance"]["evalset_id"] = "e-2"
    write_json(tmp_path / "run.json", run)
    for recorded, warned in (("s", ""), ("s-old", "warning: evaluation set 'e' records snapshot_id 's-old'; it was scored against 's'\n")):
        evalset["snapshot_id"] = recorded
        if jsonl:
            questions = evalset.pop("questions")
            lines = [json.dumps(evalset), *map(json.dumps, questions)]
            (tmp_path / "evalset.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
            evalset["questions"] = questions
            args[0] = str(tmp_path / "evalset.jsonl")
        else:
            write_json(tmp_path / "evalset.json", evalset)
        out = CliRunner().invoke(cli, ["evaluate", *args, "--format", "json"])
        assert (out.exit_code, out.stderr) == (
            0, warned + "warning: run 'run' records evalset_id 'e-2'; it was scored against 'e'\n"
        )


def test_a_k_that_cuts_a_ranking_is_shown_and_not_noted(tmp_path: Path) -> None:
    cut = _good()
    del cut["context"]
    code, table, stderr = _evaluate(tmp_path, {"run": [cut, _refusal()]}, "-k", "1")
    assert (code, stderr) == (0, "")
    assert "run (k=1)" in table


def test_a_labels_file_naming_a_mistyped_question_gets_a_suggestion(tmp_path: Path) -> None:
    args = write_files(tmp_path, DOCS, QUESTIONS, {"run": [_good(), _refusal()]})
    labels = write_json(tmp_path / "labels.json", {
        "schema_version": 1, "kind": "labels", "run": "run", "labeller": {"kind": "human", "name": "mei"},
        "fact_labels": [{"question_id": "q11", "label": {"fact_id": "f1", "verdict": "covered"}}],
    })
    out = CliRunner().invoke(cli, ["evaluate", *args, "--labels", str(labels)])
    assert out.exit_code == 2
    assert out.stderr.splitlines()[1:] == [
        f"- {labels}: question 'q11': fact_labels.question_id: expected a question answered by "
        "run 'run'; found no such result (did you mean 'q1'?)",
    ]


def test_suggestions_stop_after_a_budget_so_a_wrong_file_stays_fast() -> None:
    from ragtriage.errors import SUGGEST_BUDGET, Suggestions

    suggest = Suggestions([f"doc-{n:05d}" for n in range(5_000)])
    hints = [suggest(f"doc-{n:05d}x") for n in range(SUGGEST_BUDGET + 5)]
    assert hints[0] == " (did you mean 'doc-00000'?)"
    assert all(hints[:SUGGEST_BUDGET])
    assert hints[SUGGEST_BUDGET:] == [""] * 5


def test_mistyped_snapshot_references_get_suggestions(tmp_path: Path) -> None:
    docs = [doc("d-reset", "reset"), doc("d-new", "new", supersedes=["d-rset", "d-new"])]
    chunks = [{"id": "c1", "document_id": "d-rest", "start": 0, "end": 2}]
    write_json(tmp_path / "snapshot.json", {"schema_version": 1, "kind": "snapshot",
                                            "snapshot_id": "s", "documents": docs, "chunks": chunks})
    write_files(tmp_path, [], QUESTIONS[1:], {})
    write_json(tmp_path / "snapshot.json", {"schema_version": 1, "kind": "snapshot",
                                            "snapshot_id": "s", "documents": docs, "chunks": chunks})
    out = CliRunner().invoke(cli, ["evaluate", str(tmp_path / "evalset.json"), "--snapshot",
                                   str(tmp_path / "snapshot.json")])
    assert out.exit_code == 2
    assert out.stderr.replace(str(tmp_path), "{d}").splitlines()[1:] == [
        "- {d}/snapshot.json: chunks[id=c1].document_id: expected the ID of a document in the "
        "snapshot; found 'd-rest' (did you mean 'd-reset'?)",
        "- {d}/snapshot.json: documents[id=d-new].supersedes: expected IDs of other documents in "
        "the snapshot; found 'd-rset' (did you mean 'd-reset'?)",
        "- {d}/snapshot.json: documents[id=d-new].supersedes: expected IDs of other documents in "
        "the snapshot; found 'd-new'",
    ]
