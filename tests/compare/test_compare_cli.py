"""`ragtriage compare` on the command line, and the holdout ledger of every command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from loader_path import READERS, invoke
from ragtriage import compare_files
from ragtriage.cli.main import cli
from ragtriage.compare import comparison_json
from ragtriage.example import example_paths
from ragtriage.render import dumps

HOLDOUT_NOTE = (
    "note: 2 holdout questions left out; --include-holdout scores them (and records the look)\n"
)


def _invoke(*args: str) -> tuple[int, str, str]:
    outcome = CliRunner().invoke(cli, list(args))
    return outcome.exit_code, outcome.stdout, outcome.stderr


@pytest.fixture()
def example(tmp_path: Path) -> Path:
    """A copy of the bundled example's data, so ledgers land in a temporary folder."""
    target = tmp_path / "example"
    shutil.copytree(
        example_paths().root, target, ignore=shutil.ignore_patterns("*.holdout-ledger.jsonl")
    )
    return target


def _files(root: Path) -> list[str]:
    return [
        str(root / "evalset.json"),
        "--snapshot",
        str(root / "snapshot.json"),
        "--run",
        str(root / "runs" / "baseline.json"),
        "--run",
        str(root / "runs" / "improved.json"),
    ]


def test_compare_run_files_json_is_deterministic(example: Path) -> None:
    first = _invoke("compare", *_files(example), "--format", "json", "--resamples", "300")
    second = _invoke("compare", *_files(example), "--format", "json", "--resamples", "300")
    assert first[0] == 0, first[2]
    assert first[1] == second[1]
    assert first[2] == HOLDOUT_NOTE
    data = json.loads(first[1])
    assert data["kind"] == "comparison"
    assert data["questions"] == 15
    assert data["settings"]["resamples"] == 300
    assert data["settings"]["seed"] == 0
    statuses = [q["status"] for q in data["comparisons"][0]["questions"]]
    assert statuses == sorted(
        statuses, key=["regressed", "mixed", "improved", "changed", "unchanged"].index
    )


def test_compare_unknown_run_is_exit_2(example: Path) -> None:
    code, out, err = _invoke(
        "compare", "--example", "--baseline", "baseline", "--candidate", "nope"
    )
    assert code == 2
    assert out == ""
    assert err.endswith(
        "Error: 1 problem found in the input:\n"
        "- <command line>: --candidate: expected the name of a loaded run "
        "(baseline, improved); found 'nope'\n"
    )


def test_compare_needs_a_dataset() -> None:
    code, _, err = _invoke("compare")
    assert code == 2
    assert err.endswith("Error: give DATASET or --example\n")


def test_compare_names_a_missing_dataset_file(tmp_path: Path) -> None:
    missing = tmp_path / "nothere.jsonl"
    code, _, err = _invoke("compare", str(missing))
    assert code == 2
    assert err == (
        "Error: 1 problem found in the input:\n"
        f"- {missing}: (file): expected an existing file; found no such file\n"
    )


def test_compare_refuses_a_different_snapshot(example: Path) -> None:
    improved = example / "runs" / "improved.json"
    data = json.loads(improved.read_text(encoding="utf-8"))
    data["provenance"]["snapshot_id"] = "another-snapshot"
    improved.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = _invoke("compare", *_files(example), "--resamples", "200")
    assert code == 2
    assert (
        f"- {improved}: provenance.snapshot_id: expected 'lumenq-docs-2026-11' as in base run "
        "'baseline' (or pass --allow-different-snapshot); found 'another-snapshot'"
    ) in err
    code, out, _ = _invoke(
        "compare",
        *_files(example),
        "--resamples",
        "200",
        "--allow-different-snapshot",
        "--format",
        "json",
    )
    assert code == 0
    assert json.loads(out)["warnings"][0] == (
        "run 'improved' has snapshot_id 'another-snapshot', base 'baseline' has "
        "'lumenq-docs-2026-11' (allowed by --allow-different-snapshot)"
    )


def test_gate_refuses_a_different_snapshot_without_naming_an_option_it_lacks(
    example: Path,
) -> None:
    # Before, gate said "(or pass --allow-different-snapshot)", an option only compare has.
    improved = example / "runs" / "improved.json"
    data = json.loads(improved.read_text(encoding="utf-8"))
    data["provenance"]["snapshot_id"] = "another-snapshot"
    improved.write_text(json.dumps(data), encoding="utf-8")
    policy = example_paths().policy
    args = ["gate", *_files(example), "--policy", str(policy), "--baseline", "baseline"]
    assert _invoke(*args)[::2] == (2, HOLDOUT_NOTE + (
        "Error: 1 problem found in the input:\n"
        f"- {improved}: provenance.snapshot_id: expected 'lumenq-docs-2026-11' as in base run "
        "'baseline' (a gate compares runs of one snapshot); found 'another-snapshot'\n"
    ))


def test_a_condition_one_run_does_not_record_is_said_in_words(example: Path) -> None:
    # Before, "expected None as in base run 'improved'" (a Python value).
    base = example / "runs" / "baseline.json"
    data = json.loads(base.read_text(encoding="utf-8"))
    del data["provenance"]["snapshot_id"]
    base.write_text(json.dumps(data), encoding="utf-8")
    args = ["compare", *_files(example), "--resamples", "200"]
    assert _invoke(*args)[::2] == (2, HOLDOUT_NOTE + (
        "Error: 1 problem found in the input:\n"
        f"- {example / 'runs' / 'improved.json'}: provenance.snapshot_id: expected no "
        "snapshot_id as in base run 'baseline' (or pass --allow-different-snapshot); found "
        "'lumenq-docs-2026-11'\n"
    ))
    code, out, _ = _invoke(*args, "--allow-different-snapshot", "--format", "json")
    assert (code, json.loads(out)["warnings"][0]) == (0, (
        "run 'improved' has snapshot_id 'lumenq-docs-2026-11', base 'baseline' has no "
        "snapshot_id (allowed by --allow-different-snapshot)"
    ))


def test_a_run_file_is_one_run_however_its_path_is_spelled(example: Path) -> None:
    # Before, `--baseline` had to spell the file as `--run` did: another spelling was "a
    # file not loaded with --run", and adding it again was a duplicate run.
    spelled = str(example / "runs" / ".." / "runs" / "improved.json")
    args = [*_files(example), "--resamples", "200", "--format", "json"]
    code, out, _ = _invoke("compare", *args, "--baseline", spelled)
    assert (code, [c["candidate"] for c in json.loads(out)["comparisons"]]) == (0, ["baseline"])
    policy = str(example_paths().policy)
    code, out, _ = _invoke("gate", *args, "--policy", policy, "--candidate", spelled)
    assert (code, json.loads(out)["run"]) == (0, "improved")


@pytest.mark.parametrize("command", ["evaluate", "compare", "gate", "diagnose"])
def test_the_example_s_own_run_given_again_is_refused_by_every_command(command: str) -> None:
    # Before, compare and gate dropped it without a word when spelled as the package's path
    # (and refused it spelled otherwise); evaluate and diagnose refused it.
    again = example_paths().runs[0]
    outcome = CliRunner().invoke(cli, [command, "--example", "--run", str(again)])
    assert (outcome.exit_code, outcome.stderr.splitlines()[-2:]) == (2, [
        "Error: 1 problem found in the input:",
        f"- {again}: name: expected a run name not used by another run; found 'baseline', as "
        f"the run of {again}",
    ])


def test_without_include_holdout_no_ledger_is_written(example: Path) -> None:
    code, out, err = _invoke(
        "evaluate",
        str(example / "evalset.json"),
        "--snapshot",
        str(example / "snapshot.json"),
        "--run",
        str(example / "runs" / "baseline.json"),
        "--format",
        "json",
    )
    assert code == 0
    assert err == HOLDOUT_NOTE
    ids = [q["id"] for q in json.loads(out)["runs"][0]["questions"]]
    assert "free-quota" not in ids and "sso" not in ids
    assert not (example / "evalset.holdout-ledger.jsonl").exists()


def test_every_holdout_look_is_recorded_and_warned_about(example: Path) -> None:
    args = [
        "evaluate",
        str(example / "evalset.json"),
        "--snapshot",
        str(example / "snapshot.json"),
        "--run",
        str(example / "runs" / "baseline.json"),
        "--format",
        "json",
        "--include-holdout",
        "--who",
        "alice",
        "--holdout-warn-after",
        "1",
    ]
    first = _invoke(*args)
    second = _invoke(*args)
    assert first[0] == second[0] == 0
    assert first[1] == second[1]  # the ledger never enters the scored output
    ids = [q["id"] for q in json.loads(first[1])["runs"][0]["questions"]]
    assert "free-quota" in ids and "sso" in ids
    assert first[2] == ""
    ledger = example / "evalset.holdout-ledger.jsonl"
    assert second[2] == (
        f"warning: the holdout of {example / 'evalset.json'} has been looked at 2 times "
        "(more than 1); every look tunes against it, so its scores are drifting towards "
        f"optimistic (ledger: {ledger})\n"
    )
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert len(entries) == 2
    entry = entries[0]
    assert sorted(entry) == [
        "command",
        "dataset_sha256",
        "evalset",
        "holdout_questions",
        "runs",
        "time",
        "user",
    ]
    assert (entry["command"], entry["runs"], entry["user"], entry["holdout_questions"]) == (
        "evaluate",
        ["baseline"],
        "alice",
        2,
    )
    assert len(entry["dataset_sha256"]) == 64
    assert entry["time"].endswith("Z")


def test_compare_and_diagnose_record_their_looks(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("USER", "bob")
    code, _, _ = _invoke("compare", *_files(example), "--include-holdout", "--resamples", "200")
    assert code == 0
    code, _, _ = _invoke(
        "diagnose",
        str(example / "evalset.json"),
        "--snapshot",
        str(example / "snapshot.json"),
        "--run",
        str(example / "runs" / "improved.json"),
        "--include-holdout",
    )
    assert code == 0
    ledger = example / "evalset.holdout-ledger.jsonl"
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [(e["command"], e["runs"], e["user"]) for e in entries] == [
        ("compare", ["baseline", "improved"], "bob"),
        ("diagnose", ["improved"], "bob"),
    ]


def test_a_broken_ledger_is_invalid_input(example: Path) -> None:
    ledger = example / "evalset.holdout-ledger.jsonl"
    ledger.write_text('{"time": 3}\n', encoding="utf-8")
    code, _, err = _invoke("compare", *_files(example), "--include-holdout", "--resamples", "200")
    assert code == 2
    assert (
        f"- {ledger}: line 1: time: expected a valid string; found 3"
        in err
    )


def test_every_bad_line_of_a_ledger_is_reported_at_once(example: Path) -> None:
    ledger = example / "evalset.holdout-ledger.jsonl"
    good = {
        "time": "2026-11-30T05:40:00Z",
        "dataset_sha256": "0" * 64,
        "evalset": "evalset.json",
        "runs": ["baseline"],
        "user": "ann",
        "command": "evaluate",
        "holdout_questions": 2,
    }
    lines = [
        {**good, "time": 3},
        "{not json",
        {key: value for key, value in good.items() if key != "user"},
        good,
        {**good, "runs": "baseline", "holdout_questions": -1, "users": "bob"},
    ]
    ledger.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines),
        encoding="utf-8",
    )
    outcome = CliRunner().invoke(cli, ["evaluate", *_files(example)[:5], "--include-holdout"])
    assert outcome.exit_code == 2
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit)
    assert outcome.stderr == (
        "Error: 6 problems found in the input:\n"
        f"- {ledger}: line 1: time: expected a valid string; found 3\n"
        f"- {ledger}: line 2 column 2: expected valid JSON; found a key not in double quotes, "
        "or a comma before a closing brace\n"
        f"- {ledger}: line 3: user: expected a value (required field); found nothing\n"
        f"- {ledger}: line 5: runs: expected a valid list; found 'baseline'\n"
        f"- {ledger}: line 5: holdout_questions: expected greater than or equal to 1; found -1\n"
        f"- {ledger}: line 5: users: expected no such field (it is not part of the format); "
        "found an unknown field (did you mean 'user'?)\n"
    )


def test_a_ledger_line_with_values_no_look_has_is_refused(example: Path) -> None:
    # Before, each line was accepted: only the values' types were checked.
    ledger = example / "evalset.holdout-ledger.jsonl"
    good = {
        "time": "2026-11-30T05:40:00Z", "dataset_sha256": "0" * 64, "evalset": "evalset.json",
        "runs": ["baseline"], "user": "ann", "command": "export trec", "holdout_questions": 2,
    }
    lines = [
        {**good, "time": "yesterday"},
        {**good, "time": "2026-11-30T05:40:00+02:00"},
        {**good, "time": "2026-11-30T05:40:00"},
        {**good, "user": ""},
        {**good, "dataset_sha256": "9FCF"},
        {**good, "command": "evalute"},
        {**good, "holdout_questions": 0},
        {**good, "time": "2026-11-30T05:40:00.5+00:00"},  # UTC, as ISO 8601 allows it
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    ledger.write_text(text, encoding="utf-8")
    outcome = CliRunner().invoke(cli, ["evaluate", *_files(example)[:5], "--include-holdout"])
    time = "expected a UTC time in ISO 8601 (2026-11-30T05:40:00Z); found"
    assert (outcome.exit_code, outcome.stderr) == (2, (
        "Error: 7 problems found in the input:\n"
        f"- {ledger}: line 1: time: {time} 'yesterday'\n"
        f"- {ledger}: line 2: time: {time} '2026-11-30T05:40:00+02:00'\n"
        f"- {ledger}: line 3: time: {time} '2026-11-30T05:40:00'\n"
        f"- {ledger}: line 4: user: expected a non-empty string; found an empty string\n"
        f"- {ledger}: line 5: dataset_sha256: expected 64 lowercase hex digits (a SHA-256); "
        "found '9FCF'\n"
        f"- {ledger}: line 6: command: expected one of evaluate, diagnose, compare, gate, "
        "report, export trec, calibrate, python; found 'evalute'\n"
        f"- {ledger}: line 7: holdout_questions: expected greater than or equal to 1; found 0\n"
    ))
    assert ledger.read_text(encoding="utf-8") == text


_ENTRY = {
    "time": "2026-11-30T05:40:00Z", "dataset_sha256": "0" * 64, "evalset": "other.json",
    "runs": ["baseline"], "user": "ann", "command": "evaluate", "holdout_questions": 2,
}
"""A look at another evaluation set."""


def test_a_broken_ledger_comes_with_the_input_s_problems(example: Path) -> None:
    # Before, the ledger was read only once the input had been scored: its problem came a
    # run after the run's.
    ledger = example / "evalset.holdout-ledger.jsonl"
    ledger.write_text(json.dumps({**_ENTRY, "time": 3}) + "\n", encoding="utf-8")
    run = json.loads((example / "runs" / "improved.json").read_text(encoding="utf-8"))
    run["results"][0]["latency_ms"] = "fast"
    (example / "runs" / "improved.json").write_text(json.dumps(run), encoding="utf-8")
    code, _, err = _invoke("evaluate", *_files(example), "--include-holdout")
    qid = run["results"][0]["question_id"]
    assert (code, err.splitlines()) == (2, [
        "Error: 2 problems found in the input:",
        f"- {example / 'runs' / 'improved.json'}: question {qid!r}: latency_ms: expected a valid "
        "number; found 'fast'",
        f"- {ledger}: line 1: time: expected a valid string; found 3",
    ])
    assert ledger.read_text(encoding="utf-8") == json.dumps({**_ENTRY, "time": 3}) + "\n"


def test_a_ledger_shared_by_several_sets_counts_the_looks_at_this_one(example: Path) -> None:
    # Before, every entry counted: five looks at another set made this one's first look its
    # sixth. An entry with this set's path (an edited set) or its hash (a moved one) counts.
    ledger = example / "shared-ledger.jsonl"
    entry = _ENTRY
    ledger.write_text("".join(json.dumps(entry) + "\n" for _ in range(5)), encoding="utf-8")
    args = ["evaluate", *_files(example)[:5], "--include-holdout", "--ledger", str(ledger),
            "--holdout-warn-after", "1"]
    assert _invoke(*args)[::2] == (0, "")
    edited = {**entry, "evalset": str(example / "evalset.json")}
    sha = json.loads(ledger.read_text(encoding="utf-8").splitlines()[-1])["dataset_sha256"]
    moved = {**entry, "dataset_sha256": sha}
    with ledger.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(edited) + "\n" + json.dumps(moved) + "\n")
    assert _invoke(*args)[::2] == (0, (
        f"warning: the holdout of {example / 'evalset.json'} has been looked at 4 times "
        "(more than 1); every look tunes against it, so its scores are drifting towards "
        f"optimistic (ledger: {ledger})\n"
    ))


def test_a_look_at_an_edited_set_counts_however_its_path_is_spelt(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the ledger stored the path as given and compared it as a string: the set
    # looked at as example/evalset.json, edited, then as evalset.json from its own folder
    # was a first look (no warning). The ledger now names the set relative to its own folder.
    monkeypatch.chdir(example.parent)
    args = ["--snapshot", "example/snapshot.json", "--run", "example/runs/baseline.json",
            "--include-holdout", "--holdout-warn-after", "1"]
    assert _invoke("evaluate", "example/evalset.json", *args)[::2] == (0, "")
    evalset = example / "evalset.json"
    evalset.write_text(evalset.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    monkeypatch.chdir(example)
    ledger = example / "evalset.holdout-ledger.jsonl"
    inside = [a.removeprefix("example/") for a in args]
    assert _invoke("evaluate", "evalset.json", *inside)[::2] == (0, (
        "warning: the holdout of evalset.json has been looked at 2 times (more than 1); every "
        "look tunes against it, so its scores are drifting towards optimistic (ledger: "
        "evalset.holdout-ledger.jsonl)\n"
    ))
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [e["evalset"] for e in entries] == ["evalset.json", "evalset.json"]
    assert entries[0]["dataset_sha256"] != entries[1]["dataset_sha256"]
    # A line written before, with the path as given from another folder, still counts.
    ledger.write_text(json.dumps({**_ENTRY, "evalset": str(evalset)}) + "\n", encoding="utf-8")
    monkeypatch.chdir(example.parent)
    assert _invoke("evaluate", "example/evalset.json", *args)[::2] == (0, (
        "warning: the holdout of example/evalset.json has been looked at 2 times (more than "
        "1); every look tunes against it, so its scores are drifting towards optimistic "
        "(ledger: example/evalset.holdout-ledger.jsonl)\n"
    ))


def test_a_look_after_a_ledger_line_without_its_line_end_starts_a_new_line(
    example: Path,
) -> None:
    args = ["evaluate", *_files(example)[:5], "--include-holdout", "--who", "ann"]
    assert _invoke(*args)[0] == 0
    ledger = example / "evalset.holdout-ledger.jsonl"
    first = ledger.read_text(encoding="utf-8")
    ledger.write_text(first.rstrip("\n"), encoding="utf-8")  # as an editor may save it
    assert _invoke(*args)[0] == 0
    lines = ledger.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["user"] for line in lines] == ["ann", "ann"]
    code, _, err = _invoke(*args, "--holdout-warn-after", "2")
    assert code == 0
    assert err == (
        f"warning: the holdout of {example / 'evalset.json'} has been looked at 3 times "
        "(more than 2); every look tunes against it, so its scores are drifting towards "
        f"optimistic (ledger: {ledger})\n"
    )


@pytest.mark.parametrize("reader", READERS)
def test_a_look_counts_the_holdout_questions_the_filters_keep(example: Path, reader: str) -> None:
    args = ["evaluate", *_files(example)[:5], "--include-holdout", "--who", "ann"]
    ledger = example / "evalset.holdout-ledger.jsonl"
    outcome = invoke(reader, [*args, "--split", "dev"])  # no holdout question scored
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    assert not ledger.exists()
    outcome = invoke(reader, [*args, "--id", "sso", "--id", "exact-code", "--format", "json"])
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    ids = [q["id"] for q in json.loads(outcome.stdout)["runs"][0]["questions"]]
    assert ids == ["exact-code", "sso"]
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [(e["holdout_questions"], e["user"]) for e in entries] == [(1, "ann")]


@pytest.mark.parametrize("reader", READERS)
def test_the_holdout_note_counts_the_holdout_questions_the_filters_keep(
    example: Path, reader: str
) -> None:
    # Before, the note counted every holdout question of the set: 2 for --tag no-answer
    # (--include-holdout adds sso alone) and for --id exact-code (it adds none).
    args = ["evaluate", *_files(example)[:5], "--format", "json"]
    outcome = invoke(reader, [*args, "--tag", "no-answer"])
    assert (outcome.exit_code, outcome.stderr) == (0, (
        "note: 1 holdout question left out; --include-holdout scores them (and records the "
        "look)\n"
    ))
    outcome = invoke(reader, [*args, "--id", "exact-code"])
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    # A left-out question is not diagnosed: with --stage, those the other filters keep.
    outcome = invoke(reader, [*args, "--stage", "ok", "--id", "sso", "--id", "purge"])
    assert (outcome.exit_code, outcome.stderr) == (0, (
        "note: 1 holdout question left out; --include-holdout scores them (and records the "
        "look)\n"
    ))
    assert not (example / "evalset.holdout-ledger.jsonl").exists()


@pytest.mark.parametrize("reader", READERS)
def test_a_look_counts_only_holdout_questions_a_run_answers(example: Path, reader: str) -> None:
    # Before, a run without results for the holdout questions (--allow-missing) still
    # recorded a look at both of them.
    runs = example / "runs"
    for name, missing in (("none", {"free-quota", "sso"}), ("one", {"sso"})):
        run = json.loads((runs / "baseline.json").read_text(encoding="utf-8"))
        run["name"] = name
        run["results"] = [r for r in run["results"] if r["question_id"] not in missing]
        (runs / f"{name}.json").write_text(json.dumps(run), encoding="utf-8")
    ledger = example / "evalset.holdout-ledger.jsonl"
    args = ["evaluate", *_files(example)[:3], "--allow-missing", "--include-holdout"]
    outcome = invoke(reader, [*args, "--run", str(runs / "none.json")])
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    assert not ledger.exists()
    outcome = invoke(reader, [*args, "--run", str(runs / "none.json"), "--run",
                              str(runs / "one.json"), "--who", "ann"])
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [(e["holdout_questions"], e["runs"]) for e in entries] == [(1, ["none", "one"])]


def _one_run(root: Path) -> list[str]:
    return _files(root)[:5]


def _gate_files(root: Path) -> list[str]:
    return [*_files(root), "--policy", str(root / "policy.toml")]


def _cannot_compare(root: Path) -> str:
    """Runs that cannot be compared: the candidate records another snapshot."""
    improved = root / "runs" / "improved.json"
    data = json.loads(improved.read_text(encoding="utf-8"))
    data["provenance"]["snapshot_id"] = "another-snapshot"
    improved.write_text(json.dumps(data), encoding="utf-8")
    return (
        f"- {improved}: provenance.snapshot_id: expected 'lumenq-docs-2026-11' as in base run "
        "'baseline' (or pass --allow-different-snapshot); found 'another-snapshot'\n"
    )


REFUSED_AFTER_SCORING = {
    "compare, no such baseline": (
        lambda root: ["compare", *_files(root), "--baseline", "nope"],
        "- <command line>: --baseline: expected the name of a loaded run (baseline, improved); "
        "found 'nope'\n",
    ),
    "compare, one run": (
        lambda root: ["compare", *_one_run(root)],
        "- <command line>: RUNS: expected at least two runs to compare; found 1 run\n",
    ),
    "compare, another snapshot": (
        lambda root: ["compare", *_files(root), "--resamples", "200"],
        _cannot_compare,
    ),
    "gate, no such candidate": (
        lambda root: ["gate", *_gate_files(root), "--candidate", "nope"],
        "- <command line>: --candidate: expected the name of a loaded run (baseline, improved); "
        "found 'nope'\n",
    ),
    "gate, no such baseline": (
        lambda root: ["gate", *_gate_files(root), "--candidate", "improved", "--baseline", "x"],
        "- <command line>: --baseline: expected the name of a loaded run (baseline, improved); "
        "found 'x'\n",
    ),
    "compare, candidate is the baseline": (
        lambda root: ["compare", *_files(root), "--baseline", "baseline", "--candidate",
                      str(root / "runs" / "baseline.json")],
        "- <command line>: --candidate: expected a run other than the --baseline (baseline); "
        "found 'baseline'\n",
    ),
    "compare, candidate twice": (
        lambda root: ["compare", *_files(root), "--candidate", "improved", "--candidate",
                      "improved"],
        "- <command line>: --candidate: expected each run once; found 'improved' again\n",
    ),
    "gate, candidate is the baseline": (
        lambda root: ["gate", *_gate_files(root), "--candidate", "improved", "--baseline",
                      "improved"],
        "- <command line>: --candidate: expected a run other than the --baseline (improved); "
        "found 'improved'\n",
    ),
}
"""Commands refused once the runs are scored: the arguments, and the problem named."""


@pytest.mark.parametrize("case", sorted(REFUSED_AFTER_SCORING))
def test_a_command_refused_after_scoring_records_no_look(example: Path, case: str) -> None:
    arguments, problem = REFUSED_AFTER_SCORING[case]
    args = arguments(example)
    expected = problem if isinstance(problem, str) else problem(example)
    ledger = example / "evalset.holdout-ledger.jsonl"
    code, out, err = _invoke(*args, "--include-holdout", "--who", "ann")
    assert (code, out, err) == (2, "", f"Error: 1 problem found in the input:\n{expected}")
    assert not ledger.exists()
    # The same command on a ledger with a look already: still one look, and no warning.
    assert _invoke("evaluate", *_one_run(example), "--include-holdout", "--who", "ann")[0] == 0
    before = ledger.read_text(encoding="utf-8")
    code, out, err = _invoke(*args, "--include-holdout", "--holdout-warn-after", "0")
    assert (code, out, err) == (2, "", f"Error: 1 problem found in the input:\n{expected}")
    assert ledger.read_text(encoding="utf-8") == before
    assert [json.loads(line)["command"] for line in before.splitlines()] == ["evaluate"]


def test_a_command_that_shows_its_result_records_the_look_once(example: Path) -> None:
    ledger = example / "evalset.holdout-ledger.jsonl"
    code, _, err = _invoke(
        "compare", *_files(example), "--resamples", "200", "--include-holdout", "--who", "ann"
    )
    assert (code, err) == (0, "")
    code, _, err = _invoke(
        "gate", *_gate_files(example), "--candidate", "baseline", "--include-holdout",
        "--who", "ann", "--holdout-warn-after", "1",
    )
    assert code == 1  # a failed gate shows its result: the look is recorded
    assert err == (
        f"warning: the holdout of {example / 'evalset.json'} has been looked at 2 times "
        "(more than 1); every look tunes against it, so its scores are drifting towards "
        f"optimistic (ledger: {ledger})\n"
    )
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [
        (e["command"], e["evalset"], e["holdout_questions"], e["runs"], e["user"])
        for e in entries
    ] == [
        ("compare", "evalset.json", 2, ["baseline", "improved"], "ann"),
        ("gate", "evalset.json", 2, ["baseline", "improved"], "ann"),
    ]


def test_article_fixture_runs_are_compared_by_name(article_fixture: Path) -> None:
    code, out, _ = _invoke(
        "compare",
        str(article_fixture),
        "-k",
        "2",
        "--baseline",
        "synthetic-baseline",
        "--candidate",
        "synthetic-corrected",
        "--format",
        "json",
    )
    assert code == 0
    pair = json.loads(out)["comparisons"][0]
    assert [(q["status"], q["stage_change"]) for q in pair["questions"]] == [
        ("improved", "two-facts: retrieval_miss -> ok"),
        ("improved", "stale-version: retrieval_miss -> ok"),
        ("improved", "missing-answer: missed_refusal -> ok"),
        ("unchanged", "exact-code: ok -> ok"),
    ]
    recall = pair["metrics"]["evidence_recall"]
    assert (recall["base"], recall["candidate"], recall["paired"], recall["unpaired"]) == (
        0.5,
        1.0,
        3,
        1,
    )
    assert recall["test"]["name"] == "sign_flip_exact"
    assert recall["test"]["p_value"] == 0.5


def test_example_ledger_goes_to_the_temporary_directory() -> None:
    import tempfile

    from ragtriage.holdout import ledger_path

    assert (
        ledger_path(example_paths().evalset)
        == Path(tempfile.gettempdir()) / "ragtriage-example.holdout-ledger.jsonl"
    )
    assert ledger_path(Path("data/set.json")) == Path("data/set.holdout-ledger.jsonl")


def test_a_set_named_through_a_link_keeps_its_looks_in_the_ledger_beside_the_set(
    example: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = elsewhere / "current.json"
    link.symlink_to(example / "evalset.json")
    ledger = example / "evalset.holdout-ledger.jsonl"
    assert _invoke("evaluate", *_one_run(example), "--include-holdout", "--who", "ann")[0] == 0
    code, _, err = _invoke(
        "evaluate", str(link), *_one_run(example)[1:], "--include-holdout", "--who", "ann",
        "--holdout-warn-after", "1",
    )
    assert (code, sorted(elsewhere.iterdir())) == (0, [link])
    assert err == (
        f"warning: the holdout of {link} has been looked at 2 times (more than 1); every look "
        f"tunes against it, so its scores are drifting towards optimistic (ledger: {ledger})\n"
    )
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [e["evalset"] for e in entries] == ["evalset.json", "../elsewhere/current.json"]


def test_an_output_naming_the_ledger_beside_the_set_is_refused(example: Path) -> None:
    # Before, `-o` wrote the report over the set's ledger: its looks were gone, and the next
    # look was refused for a ledger of thousands of bad lines.
    ledger = example / "evalset.holdout-ledger.jsonl"
    assert _invoke("evaluate", *_one_run(example), "--include-holdout", "--who", "ann")[0] == 0
    before = ledger.read_bytes()
    for args in (
        ["evaluate", *_one_run(example), "--include-holdout", "--format", "json", "-o"],
        ["compare", *_files(example), "--html"],
    ):
        assert _invoke(*args, str(ledger)) == (2, "", (
            f"Error: cannot write {ledger}: it is also an input of this command (the holdout "
            "ledger). Nothing was written.\n"
        ))
    assert ledger.read_bytes() == before


def test_the_example_records_its_holdout_looks_in_the_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from ragtriage import evaluate_files

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("USER", "carol")
    code, _, err = _invoke("evaluate", "--example", "--include-holdout", "--format", "json")
    assert (code, err) == (0, "")
    evaluate_files(example=True, include_holdout=True)
    ledger = tmp_path / "ragtriage-example.holdout-ledger.jsonl"
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [
        (e["command"], e["evalset"], e["holdout_questions"], e["runs"], e["user"])
        for e in entries
    ] == [
        ("evaluate", "ragtriage:example/data/evalset.json", 2, ["baseline", "improved"], "carol"),
        ("evaluate", "ragtriage:example/data/evalset.json", 2, ["baseline", "improved"], "carol"),
    ]


def test_markdown_report_matches_the_golden_file(article_fixture: Path) -> None:
    code, out, _ = _invoke(
        "compare",
        str(article_fixture),
        "-k",
        "2",
        "--baseline",
        "synthetic-baseline",
        "--candidate",
        "synthetic-corrected",
        "--format",
        "markdown",
        "--metric",
        "evidence_recall",
        "--metric",
        "claim_support",
        "--metric",
        "correct_refusal",
        "--resamples",
        "1000",
    )
    assert code == 0
    golden = Path(__file__).parent / "golden" / "article_compare.md"
    assert out == golden.read_text(encoding="utf-8")


def test_repeats_given_in_any_order_make_the_same_report_bytes(example: Path) -> None:
    # Before, a group's label, its runs' order and the resampling streams keyed by the label
    # followed the --run order: a1+a2 and b2+b1, with intervals that differed in their digits.
    runs = {
        name: json.loads((example / "runs" / f"{name}.json").read_text(encoding="utf-8"))
        for name in ("baseline", "improved")
    }
    paths = {}
    for name, source, seed, swapped, other in (
        ("a1", "baseline", 1, 0, "improved"), ("a2", "baseline", 2, 3, "improved"),
        ("b1", "improved", 1, 0, "baseline"), ("b2", "improved", 2, 4, "baseline"),
    ):
        data = json.loads(json.dumps(runs[source]))
        data["name"], data["provenance"]["seed"] = name, seed
        data["results"][:swapped] = runs[other]["results"][:swapped]
        paths[name] = example / "runs" / f"{name}.json"
        paths[name].write_text(json.dumps(data), encoding="utf-8")

    def report(*names: str) -> str:
        files = [arg for n in names for arg in ("--run", str(paths[n]))]
        code, out, err = _invoke(
            "compare", *_files(example)[:3], *files, "--format", "json", "--resamples", "300",
            "--baseline", "a1",
        )
        assert (code, err) == (0, HOLDOUT_NOTE)
        return out

    given = report("a1", "a2", "b1", "b2")
    assert report("b2", "a2", "b1", "a1") == given
    assert report("a2", "b1", "a1", "b2") == given
    data = json.loads(given)
    assert [(g["label"], g["runs"], g["conditions"]["seed"]) for g in data["groups"]] == [
        ("a1+a2", ["a1", "a2"], "1, 2"), ("b1+b2", ["b1", "b2"], "1, 2")
    ]
    assert [i["path"] for i in data["inputs"][2:]] == [str(paths[n]) for n in paths]

    def api(*names: str) -> str:
        comparison = compare_files(
            str(example / "evalset.json"),
            snapshot=str(example / "snapshot.json"),
            runs=[str(paths[n]) for n in names],
            baseline="a1",
            resamples=300,
        )
        return dumps(comparison_json(comparison))

    # The Python API orders them the same way.
    assert api("b2", "a2", "b1", "a1") == api("a1", "a2", "b1", "b2") == given


def test_runs_not_grouped_keep_their_files_in_the_order_given(example: Path) -> None:
    # Only runs grouped as repeats have their files sorted in the report's inputs; two runs
    # compared as themselves keep the order given, which sets the base and the columns.
    runs = [str(example / "runs" / f"{name}.json") for name in ("improved", "baseline")]
    comparison = compare_files(
        str(example / "evalset.json"), snapshot=str(example / "snapshot.json"), runs=runs
    )
    assert [g.label for g in comparison.groups] == ["improved", "baseline"]
    assert [s.path for s in comparison.sources if s.kind == "run"] == runs


def test_a_ledger_that_cannot_be_written_names_the_option_only_when_it_was_not_passed(
    example: Path,
) -> None:
    # Before, "(or pass --ledger)" was said to one who had passed --ledger.
    ledger = example / "missing" / "ledger.jsonl"
    args = ["evaluate", *_files(example)[:5], "--include-holdout", "--ledger", str(ledger)]
    assert _invoke(*args)[::2] == (2, (
        "Error: 1 problem found in the input:\n"
        f"- {ledger}: (file): expected a writable holdout ledger; found No such file or "
        "directory\n"
    ))
    # The ledger beside the evaluation set (here in a folder that is gone): the hint stays.
    from ragtriage.errors import InputError
    from ragtriage.holdout import record_look

    evalset = example / "gone" / "evalset.json"
    with pytest.raises(InputError) as refused:
        record_look((str(evalset), "0" * 64), 2, command="evaluate", runs=["baseline"])
    assert [p.message() for p in refused.value.problems] == [
        f"{example / 'gone' / 'evalset.holdout-ledger.jsonl'}: (file): expected a writable "
        "holdout ledger (or pass --ledger); found No such file or directory"
    ]


def test_looks_recorded_at_once_by_several_commands_are_counted_one_after_another(
    tmp_path: Path,
) -> None:
    # Before, each command read the ledger and then appended unlocked, so two commands run
    # at once both counted themselves as look 1, and the warning after N looks came late.
    import fcntl
    import threading

    from ragtriage.holdout import read_ledger, record_look

    ledger = tmp_path / "ledger.jsonl"
    looks = []

    def look() -> None:
        evalset = (str(tmp_path / "evalset.json"), "0" * 64)
        recorded = record_look(evalset, 2, command="gate", runs=["second"], ledger=ledger)
        looks.append(None if recorded is None else recorded.looks)

    first = {
        "command": "evaluate", "dataset_sha256": "0" * 64, "evalset": "evalset.json",
        "holdout_questions": 2, "runs": ["first"], "time": "2026-11-30T05:41:11Z", "user": "mei",
    }
    with ledger.open("a+b") as other:  # another command, in the middle of recording its look
        fcntl.flock(other, fcntl.LOCK_EX)
        waiting = threading.Thread(target=look)
        waiting.start()
        waiting.join(timeout=0.3)
        waiting_for_the_other = waiting.is_alive()
        other.write((json.dumps(first) + "\n").encode())
    waiting.join()
    assert waiting_for_the_other
    assert looks == [2]
    assert [e.runs for e in read_ledger(ledger)] == [["first"], ["second"]]


def test_a_ledger_read_while_another_command_appends_its_look_is_read_whole(
    tmp_path: Path,
) -> None:
    # Before, a command checking the ledger could read another's look half-written and refuse
    # a good ledger ("line 1 column 30: expected valid JSON"), exit 2.
    import fcntl
    import threading

    from ragtriage.holdout import read_ledger

    ledger = tmp_path / "ledger.jsonl"
    read: list[list[str]] = []
    line = json.dumps({
        "command": "evaluate", "dataset_sha256": "0" * 64, "evalset": "evalset.json",
        "holdout_questions": 2, "runs": ["first"], "time": "2026-11-30T05:41:11Z", "user": "mei",
    }) + "\n"
    with ledger.open("a+b") as other:  # another command, half-way through its look
        fcntl.flock(other, fcntl.LOCK_EX)
        other.write(line[:30].encode())
        other.flush()
        reading = threading.Thread(target=lambda: read.append(
            [run for entry in read_ledger(ledger) for run in entry.runs]
        ))
        reading.start()
        reading.join(timeout=0.3)
        waited = reading.is_alive()
        other.write(line[30:].encode())
    reading.join()
    assert waited
    assert read == [["first"]]
