"""`ragtriage gate` on the command line: the example policy, exit codes, JUnit, Markdown."""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli
from ragtriage.example import example_paths


def _invoke(*args: str) -> tuple[int, str, str]:
    outcome = CliRunner().invoke(cli, list(args))
    return outcome.exit_code, outcome.stdout, outcome.stderr


def test_example_policy_passes_improved() -> None:
    code, out, _ = _invoke("gate", "--example", "--candidate", "improved", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["passed"] is True
    assert data["counts"] == {"pass": 11, "fail": 0, "skipped": 3}
    assert [r["name"] for r in data["rules"] if r["verdict"] == "skipped"] == [
        "no regression on protected questions",
        "evidence_recall drop <= 0.05",
        "fact_coverage no significant drop (p < 0.05)",
    ]


def test_example_policy_fails_baseline_with_named_rules() -> None:
    code, out, _ = _invoke("gate", "--example", "--candidate", "baseline", "--format", "json")
    assert code == 1
    data = json.loads(out)
    policy = example_paths().policy
    assert data["policy"]["sha256"] == hashlib.sha256(policy.read_bytes()).hexdigest()
    # Named as the example's other files are, whatever folder the package is installed in.
    assert data["policy"]["path"] == "ragtriage:example/data/policy.toml"
    failed = {r["name"]: r["questions"] for r in data["rules"] if r["verdict"] == "fail"}
    assert list(failed) == [
        "no permission_leak",
        "no stale_evidence in tag:version-conflict",
        "evidence_recall >= 0.85",
        "fact_coverage >= 0.8",
        "claim_support >= 0.9",
        "citation_validity >= 0.9",
        "false_refusal <= 0.1",
        "sensitive_in_answer <= 0",
    ]
    assert failed["no permission_leak"] == ["pricing"]
    assert failed["no stale_evidence in tag:version-conflict"] == ["stale-retention"]


def test_regression_against_baseline_fails_with_junit(tmp_path: Path) -> None:
    junit = tmp_path / "gate.xml"
    code, out, _ = _invoke(
        "gate",
        "--example",
        "--candidate",
        "improved",
        "--baseline",
        "baseline",
        "--format",
        "markdown",
        "--junit",
        str(junit),
    )
    assert code == 1
    assert out.startswith("## ❌ ragtriage gate: failed\n")
    assert (
        "- **no regression on protected questions**: 1 of 3 protected questions regressed: "
        "purge: ok -> " in out
    )
    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("14", "1", None)
    assert [s.get("skipped") for s in root.iter("testsuite")] == ["0"]
    failing = [c.get("name") for c in root.iter("testcase") if c.find("failure") is not None]
    assert failing == ["no regression on protected questions"]


def test_table_output_names_policy_hash() -> None:
    code, out, _ = _invoke("gate", "--example", "--candidate", "improved")
    digest = hashlib.sha256(example_paths().policy.read_bytes()).hexdigest()
    assert code == 0
    assert out.startswith("gate PASSED: run improved, policy 'LumenQ release policy' (sha256 ")
    assert digest in out.replace("\n", "")


def test_bad_policy_is_exit_2_with_every_problem(tmp_path: Path) -> None:
    policy = tmp_path / "bad.toml"
    policy.write_text('[[threshold]]\nmetric = "accuracy"\nmin = 2\n[latency]\n', encoding="utf-8")
    code, out, err = _invoke(
        "gate", "--example", "--candidate", "improved", "--policy", str(policy)
    )
    assert code == 2
    assert out == ""
    assert err.startswith("Error: 2 problems found in the input:\n")
    assert f"- {policy}: threshold[0].metric: expected one of " in err
    assert f"- {policy}: latency: expected `p50_ms`, `p95_ms` or both; found neither\n" in err


def test_gate_needs_a_policy() -> None:
    code, _, err = _invoke("gate", "x.json")
    assert code == 2
    assert "give --policy (or --example for the example's policy)" in err


def test_a_gate_without_any_run_asks_for_a_run_not_a_candidate() -> None:
    # `give --candidate NAME` named an option that cannot help when no run is loaded
    paths = example_paths()
    code, out, err = _invoke(
        "gate", str(paths.evalset), "--snapshot", str(paths.snapshot), "--policy", str(paths.policy)
    )
    assert (code, out) == (2, "")
    assert err.splitlines()[-2:] == [
        "Error: 1 problem found in the input:",
        "- <command line>: --run: expected at least one run to gate (a --run file, or runs in "
        "DATASET); found none",
    ]


def test_unknown_baseline_is_exit_2() -> None:
    code, _, err = _invoke("gate", "--example", "--candidate", "improved", "--baseline", "missing")
    assert code == 2
    assert (
        "--baseline: expected the name of a loaded run (baseline, improved); found 'missing'"
        in err
    )


def test_gate_on_the_holdout_is_recorded(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.jsonl"
    args = [
        "gate",
        "--example",
        "--candidate",
        "improved",
        "--include-holdout",
        "--ledger",
        str(ledger),
        "--who",
        "ci",
        "--format",
        "json",
    ]
    code, out, _ = _invoke(*args)
    assert code == 0
    assert json.loads(out)["questions"] == 17
    entry = json.loads(ledger.read_text(encoding="utf-8"))
    assert (entry["command"], entry["user"], entry["runs"]) == (
        "gate",
        "ci",
        ["baseline", "improved"],
    )


def test_a_ledger_naming_the_policy_is_refused_as_an_input(tmp_path: Path) -> None:
    # Before, the policy was no input to the ledger's check: its TOML lines were read as
    # ledger lines (52 problems), and a ledger that read would have been appended to it.
    from ragtriage.api import gate_files
    from ragtriage.fileio import OutputError

    policy = tmp_path / "policy.toml"
    text = example_paths().policy.read_text(encoding="utf-8")
    policy.write_text(text, encoding="utf-8")
    message = (
        f"cannot write {policy}: it is also an input of this command (--policy). "
        "Nothing was written."
    )
    code, out, err = _invoke(
        "gate", "--example", "--candidate", "improved", "--policy", str(policy),
        "--include-holdout", "--ledger", str(policy),
    )
    assert (code, out, err) == (2, "", f"Error: {message}\n")
    with pytest.raises(OutputError) as caught:
        gate_files(example=True, candidate="improved", policy=policy, include_holdout=True,
                   ledger=policy)
    assert str(caught.value) == message
    assert policy.read_text(encoding="utf-8") == text


def test_an_edited_policy_shows_a_different_hash(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    text = example_paths().policy.read_text(encoding="utf-8")
    policy.write_text(text, encoding="utf-8")
    _, first, _ = _invoke(
        "gate", "--example", "--candidate", "improved", "--policy", str(policy), "--format", "json"
    )
    policy.write_text(text.replace("min = 0.85", "min = 0.5"), encoding="utf-8")
    _, second, _ = _invoke(
        "gate", "--example", "--candidate", "improved", "--policy", str(policy), "--format", "json"
    )
    hashes = [json.loads(out)["policy"]["sha256"] for out in (first, second)]
    assert hashes[0] == hashlib.sha256(text.encode()).hexdigest()
    assert hashes[0] != hashes[1]


def test_a_carriage_return_in_a_question_id_keeps_the_markdown_table_whole(
    tmp_path: Path,
) -> None:
    # A bar in a cell ended it half-way (a carriage return, which Markdown reads as a line end,
    # cannot be in an ID: refused).
    paths = example_paths()
    (tmp_path / "runs").mkdir()
    for source, name in [(paths.evalset, "evalset.json"), (paths.snapshot, "snapshot.json"),
                         (paths.runs[0], "runs/baseline.json")]:
        text = source.read_text(encoding="utf-8").replace('"pricing"', json.dumps("pri|cing"))
        (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, _ = _invoke(
        "gate", str(tmp_path / "evalset.json"), "--snapshot", str(tmp_path / "snapshot.json"),
        "--run", str(tmp_path / "runs" / "baseline.json"), "--policy", str(paths.policy),
        "--format", "markdown",
    )
    assert code == 1
    assert (
        "| FAIL | no permission_leak | 1/15 questions | at most 0 questions | 1 of 15 "
        "questions in all diagnosed permission_leak: pri\\|cing |\n"
    ) in out


def test_run_names_in_a_usage_error_are_shown_as_escapes(tmp_path: Path) -> None:
    # The usage error lists the loaded runs: a run name setting the window title reached the
    # terminal as it was.
    paths = example_paths()
    run = json.loads(paths.runs[0].read_text(encoding="utf-8"))
    run["name"] = "b\u2028title\u202ex"  # control characters: refused
    (tmp_path / "run.json").write_text(json.dumps(run), encoding="utf-8")
    outcome = CliRunner().invoke(
        cli,
        ["gate", str(paths.evalset), "--snapshot", str(paths.snapshot), "--run",
         str(tmp_path / "run.json"), "--run", str(paths.runs[1]), "--policy", str(paths.policy)],
        color=True,
    )
    assert outcome.exit_code == 2
    assert outcome.stderr.splitlines()[-1] == (
        "Error: give --candidate NAME: the run to gate (loaded runs: "
        "b\\u2028title\\u202ex, improved)"
    )


def test_one_question_is_counted_in_the_singular() -> None:
    args = ("gate", "--example", "--id", "exact-code", "--candidate", "improved")
    code, out, _ = _invoke(*args)
    assert code == 1
    assert " ".join(out.split("┏")[0].split()).endswith(  # the headline, however wrapped
        "; 10 passed, 1 failed, 3 skipped, 1 question, selected by id exact-code"
    )
    code, out, _ = _invoke(*args, "--format", "markdown")
    assert code == 1
    assert (
        "\nRun `improved`, 1 question, selected by id exact-code; "
        "policy **LumenQ release policy** (`" in out
    )


def test_a_policy_path_with_an_undecodable_byte_is_shown_escaped_in_every_output(
    tmp_path: Path,
) -> None:
    # A file may be named so (`$'\xff'`): Python holds the byte as a lone surrogate, which no
    # report could write; each shows the path escaped, on stdout and in files alike.
    policy = tmp_path / "p\udcff.toml"
    policy.write_bytes(example_paths().policy.read_bytes())
    shown = str(tmp_path / "p\\udcff.toml")
    args = ["gate", "--example", "--candidate", "improved", "--policy", str(policy)]
    code, out, err = _invoke(*args, "--format", "json")
    assert (code, err.count("Error")) == (0, 0)
    assert json.loads(out)["policy"]["path"] == shown
    markdown, junit = tmp_path / "s.md", tmp_path / "s.xml"
    code, out, err = _invoke(*args, "--format", "markdown", "-o", str(markdown),
                             "--junit", str(junit))
    assert (code, err.count("Error")) == (0, 0)
    assert f"(`{shown}`, sha256 " in markdown.read_text(encoding="utf-8")
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).getroot().iter("property")}
    assert props["policy"] == shown
    code, out, err = _invoke(*args)
    assert (code, err.count("Error"), out.startswith("gate PASSED: run improved")) == (0, 0, True)
