"""A hostile user's inputs to `evaluate` and friends: exact messages for what they got wrong."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage import InputError, load_dataset
from ragtriage.cli.main import cli
from ragtriage.fileio import OutputError
from ragtriage.request import Request

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"


def _copy(tmp_path: Path) -> list[str]:
    shutil.copytree(EXAMPLE, tmp_path, dirs_exist_ok=True)
    return [str(tmp_path / "evalset.json"), "--snapshot", str(tmp_path / "snapshot.json")]


def test_a_record_that_is_no_object_is_named_by_its_place_not_by_a_class(tmp_path: Path) -> None:
    data = _copy(tmp_path)
    run = json.loads((tmp_path / "runs" / "baseline.json").read_text(encoding="utf-8"))
    run["results"][0] = 5
    run["results"][1]["claims"][0] = None
    (tmp_path / "bad.json").write_text(json.dumps(run), encoding="utf-8")
    (tmp_path / "versions.json").write_text('{"retry-e4291": [1]}', encoding="utf-8")
    bad, versions = tmp_path / "bad.json", tmp_path / "versions.json"
    result = CliRunner().invoke(cli, ["evaluate", *data, "--run", str(bad)])
    assert result.exit_code == 2
    assert result.output == (
        "Error: 2 problems found in the input:\n"
        f"- {bad}: results[0]: expected an object; found 5\n"
        f"- {bad}: question 'two-facts': claims[c1]: expected an object; found null\n"
    )
    result = CliRunner().invoke(cli, ["evaluate", *data, "--versions", str(versions)])
    assert result.exit_code == 2
    assert result.output == (
        "Error: 1 problem found in the input:\n"
        f"- {versions}: retry-e4291: expected an object; found [1]\n"
    )


def test_a_holdout_ledger_naming_an_input_is_refused_before_any_work(tmp_path: Path) -> None:
    data = _copy(tmp_path)
    run = tmp_path / "runs" / "baseline.json"
    before = run.read_bytes()
    for command in ("evaluate", "diagnose"):
        result = CliRunner().invoke(
            cli, [command, *data, "--run", str(run), "--include-holdout", "--ledger", str(run)]
        )
        assert result.exit_code == 2
        assert result.output == (
            f"Error: cannot write {run}: it is also an input of this command (--run). "
            "Nothing was written.\n"
        )
    assert run.read_bytes() == before
    result = CliRunner().invoke(cli, ["evaluate", *data, "--ledger", data[0]])
    assert result.output == (
        f"Error: cannot write {data[0]}: it is also an input of this command (DATASET). "
        "Nothing was written.\n"
    )


def test_an_empty_list_that_must_hold_an_item_is_refused_in_the_formats_words(
    tmp_path: Path,
) -> None:
    data = _copy(tmp_path)
    evalset = json.loads((tmp_path / "evalset.json").read_text(encoding="utf-8"))
    evalset["questions"][0]["required_evidence"][0]["any_of"] = []
    (tmp_path / "evalset.json").write_text(json.dumps(evalset), encoding="utf-8")
    article = tmp_path / "article.json"
    article.write_text(
        '{"schemaVersion": 1, "corpus": [{"id": "d", "text": "t"}], "cases": [], "runs": []}',
        encoding="utf-8",
    )
    result = CliRunner().invoke(cli, ["evaluate", *data])
    assert result.exit_code == 2
    assert result.output == (
        "Error: 1 problem found in the input:\n"
        f"- {data[0]}: question 'exact-code': required_evidence[0].any_of: "
        "expected a list of at least 1 item; found an empty list\n"
    )
    result = CliRunner().invoke(cli, ["evaluate", str(article)])
    assert result.exit_code == 2
    assert result.output == (
        "Error: 1 problem found in the input:\n"
        f"- {article}: cases: expected a list of at least 1 item; found an empty list\n"
    )


def test_an_empty_who_is_refused_not_recorded_as_user(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.jsonl"
    args = ["--example", "--include-holdout", "--ledger", str(ledger), "--who", ""]
    expected = (
        "Error: 1 problem found in the input:\n"
        "- <command line>: --who: expected a name for the holdout ledger; found an empty string\n"
    )
    for command in ("evaluate", "diagnose", "compare"):
        result = CliRunner().invoke(cli, [command, *args])
        assert (result.exit_code, result.output) == (2, expected)
    assert not ledger.exists()


def test_a_calibration_record_with_negative_counts_is_refused_not_ignored(
    article_fixture: Path, tmp_path: Path
) -> None:
    from ragtriage.cli.calibrate import calibrate_command
    from ragtriage.judges import LexicalJudge, judge_dataset, write_model
    from ragtriage.loading import load_dataset

    judged = judge_dataset(load_dataset(article_fixture), LexicalJudge())
    files = [write_model(r.labels, tmp_path / f"judge-{r.name}.json") for r in judged.runs]
    record = tmp_path / "calibration.json"
    judge_args = [a for f in files for a in ("--judge-labels", str(f))]
    made = CliRunner().invoke(
        calibrate_command, [*judge_args, str(article_fixture), "--record", str(record)]
    )
    assert made.exit_code == 0, made.output
    edited = json.loads(record.read_text(encoding="utf-8"))
    edited["claims"]["items"] = -3
    edited["facts"]["confusion_matrix"]["counts"][0][0] = -1
    record.write_text(json.dumps(edited), encoding="utf-8")
    label_args = [a for f in files for a in ("--labels", str(f))]
    result = CliRunner().invoke(
        cli,
        ["evaluate", str(article_fixture), *label_args, "--label-policy", "judge",
         "--allow-unreviewed", "--calibration", str(record)],
    )
    assert result.exit_code == 2
    assert result.output == (
        "Error: 2 problems found in the input:\n"
        f"- {record}: claims.items: expected greater than or equal to 0; found -3\n"
        f"- {record}: facts.confusion_matrix.counts[0][0]: expected greater than or equal to 0; "
        "found -1\n"
    )


def test_an_id_in_another_unicode_form_is_shown_with_escapes(tmp_path: Path) -> None:
    data = _copy(tmp_path)
    evalset = json.loads((tmp_path / "evalset.json").read_text(encoding="utf-8"))
    evalset["questions"][0]["id"] = "caf\u00e9"
    (tmp_path / "evalset.json").write_text(json.dumps(evalset), encoding="utf-8")
    run = json.loads((tmp_path / "runs" / "baseline.json").read_text(encoding="utf-8"))
    run["results"] = [r for r in run["results"] if r["question_id"] == "exact-code"]
    run["results"][0]["question_id"] = "cafe\u0301"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(run), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["evaluate", *data, "--run", str(bad), "--allow-missing", "--allow-unreviewed"]
    )
    assert result.exit_code == 2
    assert (
        f"- {bad}: question 'cafe\u0301': results.question_id: expected a question of the "
        "evaluation set; found no such question (did you mean 'caf\\xe9'? 'cafe\\u0301' "
        "differs from it only in its Unicode form)"
    ) in result.output.splitlines()


def test_the_python_api_refuses_a_holdout_ledger_naming_an_input(tmp_path: Path) -> None:
    _copy(tmp_path)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("", encoding="utf-8")
    dataset, snapshot = tmp_path / "evalset.json", tmp_path / "snapshot.json"
    run = tmp_path / "runs" / "baseline.json"
    cases = {"DATASET": dataset, "--snapshot": snapshot, "--run": run, "--labels": labels}
    for option, path in cases.items():
        request = Request.build(
            dataset, snapshot=snapshot, runs=[run], labels=[labels], include_holdout=True,
            ledger=path,
        )
        with pytest.raises(OutputError) as caught:
            request.evaluate()
        assert str(caught.value) == (
            f"cannot write {path}: it is also an input of this command ({option}). "
            "Nothing was written."
        )
    assert labels.read_bytes() == b""


def test_an_evaluation_set_without_questions_is_refused_on_both_paths(tmp_path: Path) -> None:
    _copy(tmp_path)
    evalset = json.loads((tmp_path / "evalset.json").read_text(encoding="utf-8"))
    header = {key: value for key, value in evalset.items() if key != "questions"}
    files = {
        "empty.json": json.dumps({**header, "questions": []}),
        "header.jsonl": json.dumps(header) + "\n",
        "blank.jsonl": json.dumps(header) + "\n\n  \n",
    }
    expected = {
        "empty.json": "questions: expected a list of at least 1 item; found an empty list",
        "header.jsonl": "questions: expected at least one line after the header; found none",
        "blank.jsonl": "questions: expected at least one line after the header; found none",
    }
    snapshot = str(tmp_path / "snapshot.json")
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(cli, ["evaluate", str(path), "--snapshot", snapshot])
        assert result.exit_code == 2
        head = "Error: 1 problem found in the input:\n"
        assert result.output == f"{head}- {path}: {expected[name]}\n"
        with pytest.raises(InputError) as caught:
            load_dataset(path, snapshot=snapshot)
        assert [p.message() for p in caught.value.problems] == [f"{path}: {expected[name]}"]
