"""A file's kind is told by its suffix in any case: `RUN.JSONL` is read as JSONL, `R.CSV` as
CSV, as their lower-case names are."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from ragtriage.cli.main import cli
from ragtriage.columnar import evaluate_native
from ragtriage.example import example_paths
from ragtriage.render import dumps, evaluation_json


def _jsonl(source: Path, target: Path, list_key: str) -> None:
    """The JSON document `source` written as JSONL at `target` (header, then one record a
    line)."""
    import json

    data = json.loads(source.read_text(encoding="utf-8"))
    records = data.pop(list_key)
    lines = [json.dumps(data)] + [json.dumps(record) for record in records]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_an_upper_case_jsonl_suffix_is_read_as_jsonl(tmp_path: Path) -> None:
    paths = example_paths()
    lower, upper = tmp_path / "lower", tmp_path / "upper"
    lower.mkdir()
    upper.mkdir()
    for folder, name in ((lower, "evalset.jsonl"), (upper, "EVALSET.JSONL")):
        _jsonl(paths.evalset, folder / name, "questions")
    shutil.copy(paths.snapshot, tmp_path / "snapshot.json")
    runs = list(paths.runs)
    read = [
        evaluate_native(folder / name, tmp_path / "snapshot.json", runs)
        for folder, name in ((lower, "evalset.jsonl"), (upper, "EVALSET.JSONL"))
    ]
    assert [len(run.questions) for run in read[1].runs] == [17, 17]
    shown = [dumps(evaluation_json(e)) for e in read]
    assert shown[1] == shown[0].replace("lower/evalset.jsonl", "upper/EVALSET.JSONL")


def test_an_upper_case_csv_suffix_is_imported_as_csv(tmp_path: Path) -> None:
    rows = (
        "id,question,retrieved_contexts,response,reference_contexts\n"
        'q1,How long?,"[""Refunds take 5 days.""]",5 days,"[""Refunds take 5 days.""]"\n'
    )
    for name in ("records.csv", "RECORDS.CSV"):
        (tmp_path / name).write_text(rows, encoding="utf-8")
    outcomes = [
        CliRunner().invoke(cli, ["import", "ragas", str(tmp_path / name), "-o",
                                 str(tmp_path / f"out-{name}"), "--dataset-id", "refunds"])
        for name in ("records.csv", "RECORDS.CSV")
    ]
    assert [o.exit_code for o in outcomes] == [0, 0], [o.output for o in outcomes]
    files = sorted(p.name for p in (tmp_path / "out-RECORDS.CSV").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "out-records.csv").iterdir())
    for name in files:  # the same, but for the file's name where it is recorded
        assert (tmp_path / "out-RECORDS.CSV" / name).read_text(encoding="utf-8") == (
            tmp_path / "out-records.csv" / name
        ).read_text(encoding="utf-8").replace("records.csv", "RECORDS.CSV")
