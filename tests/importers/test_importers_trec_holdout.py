"""`export trec` keeps the holdout apart as the scoring commands do: left out with a note, or
written with `--include-holdout` and the look recorded in the same ledger."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import ragtriage.api
from ragtriage.cli import cli
from ragtriage.errors import InputError
from ragtriage.example import example_paths
from ragtriage.fileio import OutputError
from ragtriage.holdout import Notice

HOLDOUT = {"free-quota", "sso"}
"""The bundled example's holdout questions (sso has no required evidence)."""


@pytest.fixture()
def example(tmp_path: Path) -> Path:
    """A copy of the bundled example, so its ledger lands beside it."""
    target = tmp_path / "example"
    shutil.copytree(example_paths().root, target)
    return target


def _export(example: Path, out: Path, *options: str) -> Result:
    return CliRunner().invoke(cli, [
        "export", "trec", str(example / "evalset.json"), "--qrels-out", str(out / "q.qrels"),
        "--run", str(example / "runs" / "baseline.json"), "--run-out", str(out / "r.run"),
        *options,
    ])


def _questions(path: Path) -> set[str]:
    return {line.split()[0] for line in path.read_text(encoding="utf-8").splitlines()}


def test_the_holdout_is_left_out_of_both_files_and_no_look_is_recorded(
    example: Path, tmp_path: Path
) -> None:
    result = _export(example, tmp_path)
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.splitlines()[0] == (
        "note: 2 holdout questions left out; --include-holdout writes them (and records the look)"
    )
    assert (len(_questions(tmp_path / "q.qrels")), len(_questions(tmp_path / "r.run"))) == (12, 15)
    assert HOLDOUT & (_questions(tmp_path / "q.qrels") | _questions(tmp_path / "r.run")) == set()
    assert not (example / "evalset.holdout-ledger.jsonl").exists()


def test_including_the_holdout_writes_it_and_records_the_look(
    example: Path, tmp_path: Path
) -> None:
    ledger = tmp_path / "looks.jsonl"
    result = _export(
        example, tmp_path, "--include-holdout", "--who", "ana", "--holdout-warn-after", "0",
        "--ledger", str(ledger),
    )
    assert (result.exit_code, result.stdout) == (0, "")
    evalset = example / "evalset.json"
    assert result.stderr.splitlines()[0] == (
        f"warning: the holdout of {evalset} has been looked at 1 times (more than 0); every look "
        "tunes against it, so its scores are drifting towards optimistic "
        f"(ledger: {ledger})"
    )
    assert (len(_questions(tmp_path / "q.qrels")), len(_questions(tmp_path / "r.run"))) == (13, 17)
    assert _questions(tmp_path / "q.qrels") & HOLDOUT == {"free-quota"}
    entry = json.loads(ledger.read_text(encoding="utf-8"))
    assert entry.pop("time").endswith("Z")
    assert entry == {
        "command": "export trec",
        "dataset_sha256": hashlib.sha256(evalset.read_bytes()).hexdigest(),
        "evalset": "example/evalset.json",  # relative to the ledger's folder
        "holdout_questions": 2,
        "runs": ["baseline"],
        "user": "ana",
    }


def test_the_python_call_takes_the_same_keywords_and_does_the_same(
    example: Path, tmp_path: Path
) -> None:
    (tmp_path / "cli").mkdir()
    (tmp_path / "py").mkdir()
    cli_result = _export(example, tmp_path / "cli", "--include-holdout", "--who", "ana")
    notes: list[Notice] = []
    ragtriage.api.export_trec_files(
        str(example / "evalset.json"), runs=str(example / "runs" / "baseline.json"),
        qrels_out=tmp_path / "py" / "q.qrels", run_out=tmp_path / "py" / "r.run",
        include_holdout=True, who="ana", notify=notes.append,
    )
    for name in ("q.qrels", "r.run"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    # Each looked once, at the default ledger beside the set; the notes are the command's.
    looks = (example / "evalset.holdout-ledger.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["command"] for line in looks] == ["export trec", "export trec"]
    assert "".join(f"{n}\n" for n in notes) == cli_result.stderr.replace("/cli/", "/py/")


def test_a_refused_export_records_no_look_and_bad_holdout_options_are_refused(
    example: Path, tmp_path: Path
) -> None:
    refused = _export(example, tmp_path, "--include-holdout", "--run-tag", "two words")
    assert refused.exit_code == 2
    assert not (example / "evalset.holdout-ledger.jsonl").exists()
    assert not (tmp_path / "q.qrels").exists()
    with pytest.raises(InputError) as bad:
        ragtriage.api.export_trec_files(
            example / "evalset.json", qrels_out=tmp_path / "q.qrels", include_holdout=True,
            who="",
        )
    assert str(bad.value) == (
        "1 problem found in the input:\n"
        "- <command line>: --who: expected a name for the holdout ledger; found an empty string"
    )
    into_set = _export(example, tmp_path, "--include-holdout", "--ledger",
                       str(example / "evalset.json"))
    assert (into_set.exit_code, into_set.stderr) == (2, (
        f"Error: cannot write {example / 'evalset.json'}: it is also an input of this command "
        "(DATASET). Nothing was written.\n"
    ))


def test_a_broken_ledger_is_refused_with_the_other_input_files_problems(
    example: Path, tmp_path: Path
) -> None:
    ledger = tmp_path / "looks.jsonl"
    ledger.write_text("not json\n", encoding="utf-8")
    (example / "runs" / "baseline.json").write_text("{\n", encoding="utf-8")
    result = _export(example, tmp_path, "--include-holdout", "--ledger", str(ledger))
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", (
        "Error: 2 problems found in the input:\n"
        f"- {example / 'runs' / 'baseline.json'}: line 2 column 1: expected valid JSON; found "
        "the end of the file (the JSON is cut short)\n"
        f"- {ledger}: line 1 column 1: expected valid JSON; found something that is not a JSON "
        "value\n"
    ))
    assert not (tmp_path / "q.qrels").exists()


def test_an_output_naming_the_ledger_beside_the_set_is_refused(
    example: Path, tmp_path: Path
) -> None:
    ledger = example / "evalset.holdout-ledger.jsonl"
    message = (
        f"cannot write {ledger}: it is also an input of this command (the holdout ledger). "
        "Nothing was written."
    )
    result = CliRunner().invoke(cli, [
        "export", "trec", str(example / "evalset.json"), "--qrels-out", str(ledger),
    ])
    assert (result.exit_code, result.stderr) == (2, f"Error: {message}\n")
    with pytest.raises(OutputError) as refused:
        ragtriage.api.export_trec_files(example / "evalset.json", qrels_out=ledger)
    assert str(refused.value) == message
    assert not ledger.exists()


def test_the_set_without_qrels_out_leaves_its_holdout_out_of_the_run(
    example: Path, tmp_path: Path
) -> None:
    # DATASET says which questions are holdout even when no qrels are written.
    run = [str(example / "runs" / "baseline.json"), "--run-out", str(tmp_path / "r.run")]
    dataset = str(example / "evalset.json")
    result = CliRunner().invoke(cli, ["export", "trec", dataset, "--run", *run])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.splitlines()[0] == (
        "note: 2 holdout questions left out; --include-holdout writes them (and records the look)"
    )
    assert (len(_questions(tmp_path / "r.run")), HOLDOUT & _questions(tmp_path / "r.run")) == (
        15, set()
    )
    assert not (tmp_path / "q.qrels").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["DATASET"], "DATASET alone writes nothing: give DATASET with --qrels-out and/or --run "
         "with --run-out"),
        ([], "nothing to write: give DATASET with --qrels-out and/or --run with --run-out"),
        (["--qrels-out", "q.qrels"], "--qrels-out needs DATASET (the qrels are its required "
         "evidence)"),
        (["DATASET", "--run", "RUN"], "--run needs --run-out"),
        (["DATASET", "--qrels-out", "q.qrels", "--run-out", "r.run"], "--run-out needs --run"),
        (["--qrels-out", "q.qrels", "--run", "RUN"], "--qrels-out needs DATASET (the qrels are "
         "its required evidence); --run needs --run-out"),
    ],
)
def test_an_output_without_its_input_or_nothing_to_write_is_refused_naming_it(
    example: Path, tmp_path: Path, options: list[str], message: str
) -> None:
    given = {"DATASET": example / "evalset.json", "RUN": example / "runs" / "baseline.json"}
    out = {o: tmp_path / o for o in options if o.endswith((".qrels", ".run"))}
    args = [str(given.get(o) or out.get(o) or o) for o in options]
    result = CliRunner().invoke(cli, ["export", "trec", *args])
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (2, f"Error: {message}")
    assert list(tmp_path.glob("*.qrels")) + list(tmp_path.glob("*.run")) == []


def test_including_the_holdout_without_the_set_is_refused(example: Path, tmp_path: Path) -> None:
    run = CliRunner().invoke(cli, [
        "export", "trec", "--run", str(example / "runs" / "baseline.json"),
        "--run-out", str(tmp_path / "r.run"), "--include-holdout",
    ])
    assert (run.exit_code, run.stderr) == (2, (
        "Usage: cli export trec [OPTIONS] [DATASET]\n"
        "Try 'cli export trec --help' for help.\n\n"
        "Error: --include-holdout needs DATASET (the holdout is one of its splits)\n"
    ))
    assert not (tmp_path / "r.run").exists()


def test_the_ledger_is_no_output_in_python(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "q.qrels"
    with pytest.raises(OutputError) as refused:
        ragtriage.api.export_trec_files(
            example / "evalset.json", qrels_out=out, include_holdout=True, ledger=out
        )
    assert str(refused.value) == (
        f"cannot write {out}: it is also an input of this command (--ledger). Nothing was written."
    )
    assert not out.exists()


@pytest.mark.parametrize("target", ["DATASET", "--run", "--qrels-out"])
def test_an_output_that_is_an_input_or_the_other_output_is_refused_in_python(
    example: Path, tmp_path: Path, target: str
) -> None:
    # Python read the set and the run, then wrote the qrels over the set (or the run over the
    # run, or the run over the qrels); only the command line refused them.
    evalset, run = example / "evalset.json", example / "runs" / "baseline.json"
    written = {"DATASET": evalset, "--run": run, "--qrels-out": tmp_path / "q.qrels"}[target]
    before = {path: path.read_bytes() for path in (evalset, run)}
    with pytest.raises(OutputError) as refused:
        ragtriage.api.export_trec_files(
            evalset, runs=run, qrels_out=tmp_path / "q.qrels", run_out=written
        )
    reason = ("it is also this command's --qrels-out" if target == "--qrels-out"
              else f"it is also an input of this command ({target})")
    assert str(refused.value) == f"cannot write {written}: {reason}. Nothing was written."
    assert {path: path.read_bytes() for path in (evalset, run)} == before
    assert not (tmp_path / "q.qrels").exists()
    assert not (example / "evalset.holdout-ledger.jsonl").exists()
    cli_run = CliRunner().invoke(cli, [
        "export", "trec", str(evalset), "--qrels-out", str(tmp_path / "q.qrels"),
        "--run", str(run), "--run-out", str(written),
    ])
    assert (cli_run.exit_code, cli_run.stderr) == (2, f"Error: {refused.value}\n")


def test_export_reads_its_files_with_the_cycle_collector_paused(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each record becomes a model, none in a cycle: with the collector running, its passes
    # took 73% of `export trec`'s time at 100,000 questions (42.5 s, 11.6 s paused).
    import gc

    from ragtriage.loading import _items

    seen: set[bool] = set()
    validate = _items.validate_item

    def validate_item(*args: object, **kwargs: object) -> object:
        seen.add(gc.isenabled())
        return validate(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_items, "validate_item", validate_item)
    assert gc.isenabled()
    ragtriage.api.export_trec_files(
        str(example / "evalset.json"), runs=str(example / "runs" / "baseline.json"),
        qrels_out=tmp_path / "q.qrels", run_out=tmp_path / "r.run",
    )
    assert (seen, gc.isenabled()) == ({False}, True)
