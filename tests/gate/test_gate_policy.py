"""Reading a policy file: every problem named with file, field, expected and found."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from ragtriage import InputError
from ragtriage.example import example_paths
from ragtriage.gate import load_policy


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _messages(path: Path) -> list[str]:
    with pytest.raises(InputError) as caught:
        load_policy(path)
    return [p.message() for p in caught.value.problems]


def test_example_policy_loads_with_its_hash() -> None:
    path = example_paths().policy
    loaded = load_policy(path)
    assert loaded.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert loaded.policy.name == "LumenQ release policy"
    assert [b.stage for b in loaded.policy.block] == ["permission_leak", "stale_evidence"]
    assert loaded.metrics() == (
        "evidence_recall",
        "fact_coverage",
        "claim_support",
        "citation_validity",
        "false_refusal",
        "sensitive_in_answer",
    )


def test_toml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, 'name = "x"\n[[threshold]\n')
    assert _messages(path) == [
        f"{path}: line 2 column 12: expected valid TOML; "
        "found Expected ']]' at the end of an array declaration"
    ]


def test_schema_problems_are_all_listed(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
colour = "red"
[[threshold]]
metric = "evidence_recall"
min = "high"
[cost]
max_mean_usd = -1
""",
    )
    assert sorted(_messages(path)) == [
        f"{path}: colour: expected no such field (it is not part of the format); "
        "found an unknown field",
        f"{path}: cost.max_mean_usd: expected greater than 0; found -1",
        f"{path}: threshold[0].min: expected a valid number; found 'high'",
    ]


def test_toml_dates_and_times_are_named_as_written(tmp_path: Path) -> None:
    # TOML has dates and times, JSON has none: the message shows them, never a traceback
    path = _write(
        tmp_path,
        """
[[threshold]]
metric = 07:32:00
min = 1979-05-27
[latency]
p95_ms = {at = 1979-05-27T07:32:00Z}
""",
    )
    assert sorted(_messages(path)) == [
        f"{path}: latency.p95_ms: expected a valid number; "
        'found {"at": "1979-05-27 07:32:00+00:00"}',
        f"{path}: threshold[0].metric: expected a valid string; found 07:32:00",
        f"{path}: threshold[0].min: expected a valid number; found 1979-05-27",
    ]


def test_a_no_regression_rule_protecting_nothing_is_refused(tmp_path: Path) -> None:
    # it would pass whatever the run does, as a [latency] table without a bound would
    path = _write(tmp_path, "[no_regression]\nsplits = []\ntags = []\n")
    assert _messages(path) == [
        f"{path}: no_regression: expected a split or a tag to protect; "
        "found empty `splits` and `tags`"
    ]
    assert load_policy(_write(tmp_path, "[no_regression]\nsplits = []\n")).policy.no_regression


def test_semantic_problems_are_all_listed(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
[[block]]
stage = "retrieval_mis"
slice = "tags:x"
[[threshold]]
metric = "evidence_recal"
[[drop]]
metric = "fact_coverage"
[latency]
max_missing = 0.1
""",
    )
    messages = _messages(path)
    assert messages[0].startswith(f"{path}: threshold[0].metric: expected one of ")
    assert messages[0].endswith("; found 'evidence_recal'")
    assert messages[1].startswith(
        f"{path}: block[0].stage: expected a diagnosis stage (permission_leak, "
    )
    assert messages[1].endswith("; found 'retrieval_mis'")
    assert messages[2:] == [
        f"{path}: block[0].slice: expected `all`, `tag:NAME` or `split:dev|regression|holdout`; "
        "found 'tags:x'",
        f"{path}: threshold[0]: expected `min`, `max` or both; found neither",
        f"{path}: drop[0]: expected `max_drop`, `significant = true` or both; found neither",
        f"{path}: latency: expected `p50_ms`, `p95_ms` or both; found neither",
    ]


def test_missing_policy_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.toml"
    assert _messages(path) == [
        f"{path}: (file): expected an existing policy file; found no such file"
    ]


def test_malformed_and_meaningless_rules_are_listed_together(tmp_path: Path) -> None:
    # a wrong type in one rule does not hide an unknown stage, slice or bound in the others
    path = _write(
        tmp_path,
        """
[[threshold]]
metric = "evidence_recall"
min = "0.5"
[[threshold]]
metric = "ndcg@10"
max = 2
[[block]]
stage = "permission_leak"
slice = "tag:"
[latency]
p95_ms = -5
""",
    )
    assert _messages(path) == [
        f"{path}: threshold[0].min: expected a valid number; found '0.5'",
        f"{path}: latency.p95_ms: expected greater than 0; found -5",
        f"{path}: block[0].slice: expected `all`, `tag:NAME` or `split:dev|regression|holdout`; "
        "found 'tag:'",
        f"{path}: threshold[1].max: expected a bound from 0 to 1 (ndcg range); found 2",
    ]


def test_a_policy_without_rules_also_lists_its_malformed_fields(tmp_path: Path) -> None:
    path = _write(tmp_path, 'schema_version = "1"\nname = 5\n')
    assert _messages(path) == [
        f"{path}: (policy): expected at least one rule ([block], [no_regression], [threshold], "
        "[drop], [latency], [cost], [sensitive]); found no rules",
        f"{path}: schema_version: expected 1; found '1'",
        f"{path}: name: expected a valid string; found 5",
    ]


def test_a_json_policy_is_read_as_json(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(
        '{"name": "json policy", "threshold": [{"metric": "ndcg@10", "min": 1}]}', encoding="utf-8"
    )
    loaded = load_policy(path)
    assert (loaded.policy.name, loaded.metrics()) == ("json policy", ("ndcg@10",))
    path.write_text('{"threshold": {"metric": "evidence_recal", "min": 0.5}}', encoding="utf-8")
    assert _messages(path) == [
        f"{path}: threshold: expected a valid list; found "
        '{"metric": "evidence_recal", "min": 0.5}'
    ]
    path.write_text("[]", encoding="utf-8")
    assert _messages(path) == [
        f"{path}: (top level): expected a JSON object holding the policy's sections; found []"
    ]
