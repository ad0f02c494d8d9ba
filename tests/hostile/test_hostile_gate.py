"""Hostile release policies: the gate fails closed, never passes on a broken or empty policy.

Every policy is written at test time. Each case is a clean exit 2 naming the file, the rule and
what was expected and found; exit 1 only for a gate that genuinely failed.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli
from ragtriage.columnar import evaluate
from ragtriage.example import example_paths
from ragtriage.gate import gate, gate_json, load_policy
from ragtriage.loading import load_dataset
from ragtriage.metrics import REGISTRY, VALUE_RANGES

SECONDS_PER_CASE = 20.0
RULES = "[block], [no_regression], [threshold], [drop], [latency], [cost], [sensitive]"


def _gate(policy: Path, *extra: str) -> tuple[int, str, str]:
    started = time.monotonic()
    out = CliRunner().invoke(
        cli, ["gate", "--example", "--candidate", "baseline", "--policy", str(policy), *extra]
    )
    assert time.monotonic() - started < SECONDS_PER_CASE
    assert out.exception is None or isinstance(out.exception, SystemExit), out.exception
    return out.exit_code, out.stdout, out.stderr


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if not line.startswith("note:")]


# (name, policy text, the problem lines after the count line)
CASES: list[tuple[str, str, list[str]]] = [
    (
        "nan-min",
        '[[threshold]]\nmetric = "evidence_recall"\nmin = nan\n',
        ["threshold[0].min: expected a finite number; found NaN"],
    ),
    (
        "inf-max",
        '[[threshold]]\nmetric = "claim_support"\nmax = inf\n',
        ["threshold[0].max: expected a finite number; found Infinity"],
    ),
    (
        "minus-inf-min",
        '[[threshold]]\nmetric = "claim_support"\nmin = -inf\n',
        ["threshold[0].min: expected a finite number; found -Infinity"],
    ),
    (
        "nan-drop",
        '[[drop]]\nmetric = "fact_coverage"\nmax_drop = nan\n',
        ["drop[0].max_drop: expected a finite number; found NaN"],
    ),
    (
        "inf-latency",
        "[latency]\np95_ms = inf\n",
        ["latency.p95_ms: expected a finite number; found Infinity"],
    ),
    (
        "nan-cost",
        "[cost]\nmax_mean_usd = nan\n",
        ["cost.max_mean_usd: expected a finite number; found NaN"],
    ),
    (
        "nan-defaults",
        '[defaults]\nmax_not_applicable = nan\n[[block]]\nstage = "permission_leak"\n',
        ["defaults.max_not_applicable: expected a finite number; found NaN"],
    ),
    (
        "every-non-finite-number",
        '[[threshold]]\nmetric = "evidence_recall"\nmin = nan\n[latency]\np50_ms = inf\n'
        "p95_ms = -inf\n",
        [
            "threshold[0].min: expected a finite number; found NaN",
            "latency.p50_ms: expected a finite number; found Infinity",
            "latency.p95_ms: expected a finite number; found -Infinity",
        ],
    ),
    (
        # Before: the NaN alone; the file's other problems came only once it was fixed.
        "nan-with-other-problems",
        'bogus = 1\n[[threshold]]\nmetric = "accuracy"\nmin = nan\n',
        [
            "threshold[0].min: expected a finite number; found NaN",
            "bogus: expected no such field (it is not part of the format); found an unknown field",
            f"threshold[0].metric: expected one of {', '.join(sorted(REGISTRY))}; found 'accuracy'",
        ],
    ),
    (
        "percent-for-fraction",
        '[[threshold]]\nmetric = "evidence_recall"\nmin = 85\n',
        ["threshold[0].min: expected a bound from 0 to 1 (evidence_recall range); found 85"],
    ),
    (
        "negative-max",
        '[[threshold]]\nmetric = "false_refusal"\nmax = -0.1\n',
        ["threshold[0].max: expected a bound from 0 to 1 (false_refusal range); found -0.1"],
    ),
    (
        "drop-past-range",
        '[[drop]]\nmetric = "ndcg@10"\nmax_drop = 1.5\n',
        ["drop[0].max_drop: expected an allowed drop from 0 to 1 (ndcg range); found 1.5"],
    ),
    (
        "unknown-measure",
        '[[threshold]]\nmetric = "accuracy"\nmin = 0.5\n',
        [f"threshold[0].metric: expected one of {', '.join(sorted(REGISTRY))}; found 'accuracy'"],
    ),
    (
        "huge-cutoff",
        '[[threshold]]\nmetric = "ndcg@1000000000000000000000000000000"\nmin = 0.5\n',
        [
            "threshold[0].metric: expected an integer from 1 to 10000; "
            "found '1000000000000000000000000000000'"
        ],
    ),
    (
        "empty-file",
        "",
        [f"(policy): expected at least one rule ({RULES}); found an empty file"],
    ),
    (
        "whitespace-only",
        "\n\n   \n# a comment\n",
        [f"(policy): expected at least one rule ({RULES}); found an empty file"],
    ),
    (
        "no-rules",
        'name = "nothing"\n[defaults]\nalpha = 0.1\n',
        [f"(policy): expected at least one rule ({RULES}); found no rules"],
    ),
    (
        "empty-rule-lists",
        "threshold = []\nblock = []\ndrop = []\n",
        [f"(policy): expected at least one rule ({RULES}); found no rules"],
    ),
]


@pytest.mark.parametrize(("name", "text", "problems"), CASES, ids=[c[0] for c in CASES])
def test_broken_policy_is_exit_2_naming_file_rule_expected_found(
    tmp_path: Path, name: str, text: str, problems: list[str]
) -> None:
    policy = tmp_path / f"{name}.toml"
    policy.write_text(text, encoding="utf-8")
    code, stdout, stderr = _gate(policy)
    assert code == 2
    assert stdout == ""
    count = len(problems)
    assert _error_lines(stderr) == [
        f"Error: {count} problem{'s' if count > 1 else ''} found in the input:",
        *(f"- {policy}: {p}" for p in problems),
    ]


def test_a_broken_policy_and_the_input_s_problems_come_in_one_error(tmp_path: Path) -> None:
    # The policy's rules are not needed to check the input, so one run of the gate lists both.
    paths = example_paths()
    evalset = json.loads(paths.evalset.read_text(encoding="utf-8"))
    evalset["questions"][0]["answerability"] = "maybe"
    (tmp_path / "evalset.json").write_text(json.dumps(evalset), encoding="utf-8")
    policy = tmp_path / "policy.toml"
    policy.write_text('[latency]\np95_ms = "fast"\n', encoding="utf-8")
    runs = [arg for run in paths.runs for arg in ("--run", str(run))]
    out = CliRunner().invoke(cli, [
        "gate", str(tmp_path / "evalset.json"), "--snapshot", str(paths.snapshot), *runs,
        "--candidate", "baseline", "--policy", str(policy),
    ])
    question = evalset["questions"][0]["id"]
    assert (out.exit_code, out.stdout) == (2, "")
    assert _error_lines(out.stderr.replace(str(tmp_path) + "/", "")) == [
        "Error: 2 problems found in the input:",
        "- policy.toml: latency.p95_ms: expected a valid number; found 'fast'",
        f"- evalset.json: question {question!r}: answerability: expected 'answerable', "
        "'unanswerable' or 'needs_clarification'; found 'maybe'",
    ]
    # A policy whose input is sound: its problems alone, as before, and no look at the holdout
    # is recorded.
    ledger = tmp_path / "ledger.jsonl"
    code, stdout, stderr = _gate(policy, "--include-holdout", "--ledger", str(ledger))
    assert not ledger.exists()
    assert (code, stdout, _error_lines(stderr.replace(str(tmp_path) + "/", ""))) == (2, "", [
        "Error: 1 problem found in the input:",
        "- policy.toml: latency.p95_ms: expected a valid number; found 'fast'",
    ])


def test_integer_past_int_limit_and_deep_nesting_are_exit_2(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text("x = " + "9" * 5000 + "\n", encoding="utf-8")
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 100_000 + "\n", encoding="utf-8")
    code, _, stderr = _gate(big)
    assert code == 2
    assert _error_lines(stderr)[1] == (
        f"- {big}: (file): expected integers of at most 4300 digits; "
        "found an integer of more than 4300 digits"
    )
    code, _, stderr = _gate(deep)
    assert code == 2
    assert _error_lines(stderr)[1] == (
        f"- {deep}: (file): expected at most 200 levels of nested arrays and objects; "
        "found deeper nesting"
    )


def test_a_policy_the_run_fails_is_exit_1_not_2(tmp_path: Path) -> None:
    policy = tmp_path / "strict.toml"
    policy.write_text('[[threshold]]\nmetric = "evidence_recall"\nmin = 1.0\n', encoding="utf-8")
    code, stdout, _ = _gate(policy, "--format", "json")
    assert code == 1
    assert json.loads(stdout)["counts"] == {"fail": 1, "pass": 0, "skipped": 0}


def test_every_registry_measure_has_a_finite_value_range() -> None:
    for spec in REGISTRY.values():
        low, high = spec.value_range
        assert math.isfinite(low) and math.isfinite(high) and low < high, spec.name
    assert VALUE_RANGES == {"ratio": (0.0, 1.0), "boolean": (0.0, 1.0)}


def _refuse(constant: str) -> float:
    raise ValueError(f"not JSON: {constant}")


def test_non_finite_observation_fails_closed_and_writes_null(tmp_path: Path) -> None:
    # Loaders refuse non-finite costs; the gate must still fail closed if one gets through.
    paths = example_paths()
    dataset = load_dataset(paths.evalset, snapshot=paths.snapshot, runs=list(paths.runs))
    improved = dataset.runs[1]
    first = improved.results[0].model_copy(update={"cost_usd": math.inf})
    bad = improved.model_copy(update={"results": [first, *improved.results[1:]]})
    dataset = dataclasses.replace(dataset, runs=(dataset.runs[0], bad))
    policy = tmp_path / "cost.toml"
    policy.write_text("[cost]\nmax_mean_usd = 0.5\nmax_missing = 1.0\n", encoding="utf-8")
    result = gate(evaluate(dataset), load_policy(policy), "improved")
    (rule,) = result.rules
    assert (rule.verdict, rule.observed, rule.observed_text) == (
        "fail",
        None,
        "not a finite number (inf)",
    )
    assert rule.detail.startswith("the observed value is not a finite number (inf) (fail closed); ")
    text = json.dumps(gate_json(result), allow_nan=False)
    data = json.loads(text, parse_constant=_refuse)
    assert data["rules"][0]["observed"] is None
    nan_rule = dataclasses.replace(rule, observed=math.nan)
    raw = json.dumps(gate_json(dataclasses.replace(result, rules=(nan_rule,))), allow_nan=False)
    assert json.loads(raw, parse_constant=_refuse)["rules"][0]["observed"] is None


def test_gate_json_output_is_strict_json(tmp_path: Path) -> None:
    out = CliRunner().invoke(
        cli, ["gate", "--example", "--candidate", "baseline", "--format", "json"]
    )
    assert out.exit_code == 1
    data = json.loads(out.stdout, parse_constant=_refuse)
    assert all(
        r["observed"] is None or math.isfinite(r["observed"]) for r in data["rules"]
    )


def test_costs_near_the_largest_float_have_a_mean_not_a_traceback(tmp_path: Path) -> None:
    # Each cost is a finite number the run format accepts; their exact sum is not, and
    # `math.fsum` raised OverflowError: the mean is the costs each divided by the count.
    paths = example_paths()
    run = json.loads(paths.runs[1].read_text(encoding="utf-8"))
    for result in run["results"]:
        result["cost_usd"] = 1.7e308
    (tmp_path / "run.json").write_text(json.dumps(run), encoding="utf-8")
    policy = tmp_path / "cost.toml"
    policy.write_text("[cost]\nmax_mean_usd = 0.0005\n", encoding="utf-8")
    out = CliRunner().invoke(
        cli,
        ["gate", str(paths.evalset), "--snapshot", str(paths.snapshot), "--run",
         str(tmp_path / "run.json"), "--candidate", run["name"], "--policy", str(policy),
         "--format", "json"],
    )
    assert out.exception is None or isinstance(out.exception, SystemExit), out.exception
    assert out.exit_code == 1
    [rule] = json.loads(out.stdout)["rules"]
    assert (rule["verdict"], rule["observed"]) == ("fail", 1.7e308)
    assert rule["detail"] == "1.7e+308 USD > 0.0005 USD"
