"""`--id` (and `ids=` of the Python API): a pattern that matches no question of the evaluation
set is refused, every such pattern named; other filters matching nothing give an empty report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from stage_dataset import stage_dataset

import ragtriage
from loader_path import READERS, invoke
from ragtriage.cli.main import cli
from ragtriage.errors import InputError
from ragtriage.filters import QuestionSelection, evaluate_selected

EXPECTED = "expected the ID of a question of the evaluation set, or a glob matching one"


def _problem(found: str) -> str:
    return f"- <command line>: --id: {EXPECTED}; found {found}"


@pytest.mark.parametrize("reader", READERS)
def test_every_unknown_id_is_named_and_the_exit_is_2(reader: str) -> None:
    result = invoke(reader, [
        "evaluate", "--example", "--id", "nope", "--id", "exact-*", "--id", "q-*",
        "--id", "two-fact", "--id", "nope", "--id", "Sso",
    ])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "\n".join([
        "Error: 4 problems found in the input:",
        _problem("'nope'"),
        _problem("'q-*'"),  # a glob: no "did you mean"
        _problem("'two-fact' (did you mean 'two-facts'?)"),
        _problem("'Sso'"),  # matched case-sensitively: not the holdout question sso
        "",
    ])


@pytest.mark.parametrize("reader", READERS)
def test_an_id_in_the_holdout_left_out_is_known_and_selects_nothing(reader: str) -> None:
    result = invoke(reader, ["evaluate", "--example", "--id", "sso", "--format", "json"])
    assert result.exit_code == 0
    assert [run["questions"] for run in json.loads(result.stdout)["runs"]] == [[], []]
    assert result.stderr == (  # the note counts the one holdout question selected
        "note: 1 holdout question left out; --include-holdout scores them (and records the "
        "look)\n"
    )


@pytest.mark.parametrize(
    "selection",
    [
        ["--tag", "no-such-tag"],
        ["--stage", "needless_escalation"],  # no question has it: good news, not a mistake
        ["--id", "exact-code", "--split", "regression"],  # each known, none both
    ],
)
def test_other_filters_matching_nothing_give_an_empty_report(selection: list[str]) -> None:
    result = CliRunner().invoke(cli, ["evaluate", "--example", *selection, "--format", "json"])
    assert result.exit_code == 0
    assert [run["questions"] for run in json.loads(result.stdout)["runs"]] == [[], []]


@pytest.mark.parametrize("command", ["diagnose", "compare", "gate"])
def test_every_command_with_the_filters_refuses_an_unknown_id(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--example", "--id", "nope"])
    assert result.exit_code == 2
    assert result.stderr == f"Error: 1 problem found in the input:\n{_problem(repr('nope'))}\n"


def test_the_python_api_refuses_an_unknown_id() -> None:
    with pytest.raises(InputError) as caught:
        ragtriage.evaluate_files(example=True, ids=["exact-code", "exact-cod"])
    assert str(caught.value) == (
        "1 problem found in the input:\n" + _problem("'exact-cod' (did you mean 'exact-code'?)")
    )
    assert ragtriage.evaluate_files(example=True, ids="exact-*").runs[0].questions[0].question_id \
        == "exact-code"


def test_evaluate_selected_refuses_an_unknown_id_before_the_stage_pass() -> None:
    selection = QuestionSelection(stages=("incomplete_answer",), ids=("q-miss", "q-mis"))
    with pytest.raises(InputError) as caught:
        evaluate_selected(stage_dataset(), selection, metrics=["evidence_recall"])
    assert [p.found for p in caught.value.problems] == ["'q-mis' (did you mean 'q-miss'?)"]


@pytest.mark.parametrize("reader", READERS)
def test_an_unknown_id_is_refused_before_any_run_is_read_or_scored(
    reader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ragtriage.columnar._engine_pass as engine
    import ragtriage.columnar._native_eval as entry

    work: list[str] = []
    read_run, score = engine.read_run_parallel, entry.evaluate

    def reading(*args: object, **kwargs: object) -> object:
        work.append("a run read")
        return read_run(*args, **kwargs)  # type: ignore[arg-type]

    def scoring(*args: object, **kwargs: object) -> object:
        work.append("a dataset scored")
        return score(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "read_run_parallel", reading)
    monkeypatch.setattr(entry, "evaluate", scoring)
    result = invoke(reader, ["evaluate", "--example", "--id", "exact-*", "--id", "nope"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"Error: 1 problem found in the input:\n{_problem(repr('nope'))}\n"
    with pytest.raises(InputError) as caught:
        ragtriage.evaluate_files(example=True, ids=["sso", "exact-cod"])
    assert str(caught.value) == (
        "1 problem found in the input:\n" + _problem("'exact-cod' (did you mean 'exact-code'?)")
    )
    assert work == []
    assert invoke(reader, ["evaluate", "--example", "--id", "exact-*"]).exit_code == 0
    assert work  # the spies see the work a known ID leads to


def _bracketed_files(folder: Path) -> list[str]:
    """A native set whose question IDs hold glob characters: `faq[1]`, `faq1`, `faq2`."""
    ids = ["faq[1]", "faq1", "faq2"]
    files = {
        "snap.json": {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
                      "documents": [{"id": "a", "text": "text of a"}]},
        "set.json": {"schema_version": 1, "kind": "evalset", "evalset_id": "e", "questions": [
            {"id": i, "text": "q?", "answerability": "answerable",
             "required_evidence": [{"any_of": ["a"]}]} for i in ids
        ]},
        "run.json": {"schema_version": 1, "kind": "run", "name": "r", "provenance": {"k": 1},
                     "results": [{"question_id": i, "candidates": [{"id": "a"}]} for i in ids]},
    }
    for name, content in files.items():
        (folder / name).write_text(json.dumps(content), encoding="utf-8")
    return [str(folder / "set.json"), "--snapshot", str(folder / "snap.json"),
            "--run", str(folder / "run.json")]


@pytest.mark.parametrize("reader", READERS)
def test_an_id_holding_glob_characters_selects_its_own_question(
    reader: str, tmp_path: Path
) -> None:
    # 'faq[1]' read only as a glob matches 'faq1' and never the question 'faq[1]' itself: the
    # ID of a question of the set was refused as matching none, or left its question out.
    files = _bracketed_files(tmp_path)
    for command in ("evaluate", "diagnose"):
        result = invoke(reader, [command, *files, "--id", "faq[1]", "--format", "json"])
        assert (result.exit_code, result.stderr) == (0, "")
        questions = json.loads(result.stdout)["runs"][0]["questions"]
        assert [q["id"] for q in questions] == ["faq[1]", "faq1"]
    result = invoke(reader, ["evaluate", *files, "--id", "faq[3]"])
    assert result.exit_code == 2
    assert result.stderr == f"Error: 1 problem found in the input:\n{_problem(repr('faq[3]'))}\n"
    selected = ragtriage.evaluate_files(
        files[0], snapshot=files[2], runs=[files[4]], ids=["faq[1]"]
    )
    assert [q.question_id for q in selected.runs[0].questions] == ["faq[1]", "faq1"]
