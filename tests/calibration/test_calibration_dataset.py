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
