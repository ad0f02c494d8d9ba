"""`calibrate DATASET` on the bundled example: DATASET read once, and its holdout kept apart
as the scoring commands keep it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import ragtriage.loading
from ragtriage.cli import cli
from ragtriage.example import example_paths
from ragtriage.judges import LexicalJudge, judge_dataset, write_model


@pytest.fixture()
def example(tmp_path: Path) -> Path:
    """A copy of the bundled example with the lexical judge's labels of its baseline run."""
    target = tmp_path / "example"
    shutil.copytree(example_paths().root, target)
    dataset = ragtriage.loading.load_dataset(
        target / "evalset.json", snapshot=target / "snapshot.json",
        runs=[target / "runs" / "baseline.json"],
    )
    write_model(judge_dataset(dataset, LexicalJudge()).runs[0].labels, target / "judge.json")
    return target


def _calibrate(example: Path, *options: str) -> Result:
    return CliRunner().invoke(cli, [
        "calibrate", str(example / "evalset.json"), "--snapshot", str(example / "snapshot.json"),
        "--run", str(example / "runs" / "baseline.json"),
        "--judge-labels", str(example / "judge.json"), "--format", "json", *options,
    ])


def _paired(result: Result) -> tuple[int, int, int, int]:
    """Paired claims and facts, and the baseline's human-labelled and judge-judged claims."""
    data = json.loads(result.stdout)
    support = data["claim_support"][0]
    return (data["claims"]["items"], data["facts"]["items"], support["ppi"]["n_labelled"],
            support["judge_only"]["denominator"])


def test_the_holdout_is_left_out_unless_included(example: Path) -> None:
    ledger = example / "evalset.holdout-ledger.jsonl"
    left = _calibrate(example)
    assert (left.exit_code, left.stderr) == (0, (
        "note: 1 holdout question left out; --include-holdout uses them (and records the look)\n"
    ))
    assert _paired(left) == (17, 15, 17, 17)
    assert not ledger.exists()
    included = _calibrate(example, "--include-holdout", "--who", "ana")
    assert (included.exit_code, included.stderr) == (0, "")
    assert _paired(included) == (18, 16, 18, 18)
    entry = json.loads(ledger.read_text(encoding="utf-8"))
    assert (entry["command"], entry["runs"], entry["user"], entry["holdout_questions"]) == (
        "calibrate", ["baseline"], "ana", 1
    )


def test_the_ledger_is_no_output(example: Path) -> None:
    ledger = example / "look.jsonl"
    result = _calibrate(example, "--include-holdout", "--ledger", str(ledger), "-o", str(ledger))
    assert (result.exit_code, result.stderr) == (2, (
        f"Error: cannot write {ledger}: it is also an input of this command (--ledger). "
        "Nothing was written.\n"
    ))
    assert not ledger.exists()


def test_a_broken_ledger_is_refused_with_the_other_input_files_problems(example: Path) -> None:
    ledger = example / "evalset.holdout-ledger.jsonl"
    ledger.write_text("not json\n", encoding="utf-8")
    (example / "judge.json").write_text("{\n", encoding="utf-8")
    result = _calibrate(example, "--include-holdout")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", (
        "Error: 2 problems found in the input:\n"
        f"- {example / 'judge.json'}: line 2 column 1: expected valid JSON; found the end of "
        "the file (the JSON is cut short)\n"
        f"- {ledger}: line 1 column 1: expected valid JSON; found something that is not a JSON "
        "value\n"
    ))


def test_including_the_holdout_without_the_set_is_refused(example: Path) -> None:
    result = CliRunner().invoke(cli, [
        "calibrate", "--judge-labels", str(example / "judge.json"), "--include-holdout",
    ])
    assert (result.exit_code, result.stderr) == (2, (
        "Usage: cli calibrate [OPTIONS] [DATASET]\n"
        "Try 'cli calibrate --help' for help.\n\n"
        "Error: --include-holdout needs DATASET (the holdout is one of its splits)\n"
    ))


def test_the_dataset_is_loaded_once(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[Path] = []
    load = ragtriage.loading.load_dataset

    def counted(dataset: Path, **options: object) -> ragtriage.loading.Dataset:
        loads.append(dataset)
        return load(dataset, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(ragtriage.loading, "load_dataset", counted)
    result = _calibrate(example)
    assert result.exit_code == 0
    assert loads == [example / "evalset.json"]
    inputs = [(i["role"], i["kind"]) for i in json.loads(result.stdout)["inputs"]]
    assert inputs == [("judge", "labels"), ("human", "evalset"), ("human", "snapshot"),
                      ("human", "run")]


def test_judge_labels_by_the_runs_generator_are_refused_as_evaluate_refuses_them(
    example: Path,
) -> None:
    labels = json.loads((example / "judge.json").read_text(encoding="utf-8"))
    for entry in labels["claim_labels"] + labels["fact_labels"]:
        entry["label"]["labeller"]["name"] = "example-chat-model"  # the baseline's generator
    (example / "judge.json").write_text(json.dumps(labels), encoding="utf-8")
    refused = _calibrate(example)
    assert refused.exit_code == 2
    assert refused.stderr.splitlines()[:2] == [  # the file holding the generator's labels
        "Error: 13 problems found in the input:",
        f"- {example / 'judge.json'}: question 'exact-code': claims.labels.labeller.name: "
        "expected a judge other than the run's generator 'example-chat-model' "
        "(or --accept-self-labelling); found 'example-chat-model'",
    ]
    accepted = _calibrate(example, "--accept-self-labelling")
    assert accepted.exit_code == 0, accepted.stderr
    assert _paired(accepted) == (17, 15, 17, 17)
