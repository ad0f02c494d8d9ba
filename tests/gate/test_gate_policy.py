"""Reading a policy file: every problem named with file, field, expected and found."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from ragtriage import InputError
from ragtriage.diagnosis import stage_order
from ragtriage.example import example_paths
from ragtriage.gate import load_policy
from ragtriage.metrics import REGISTRY


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


def test_a_drop_rules_alpha_without_a_significance_test_is_refused(tmp_path: Path) -> None:
    # `alpha` is the level of the significance test that `significant = true` asks for: on a
    # rule without it the level was read by nothing, and the rule passed any p
    path = _write(
        tmp_path,
        '[[drop]]\nmetric = "fact_coverage"\nmax_drop = 0.02\nalpha = 0.01\n'
        '[[drop]]\nmetric = "fact_coverage"\nsignificant = true\nalpha = 0.01\n',
    )
    assert _messages(path) == [
        f"{path}: drop[0].alpha: expected no alpha unless `significant = true` (the level of "
        "its significance test); found 0.01 with significant = false"
    ]


def test_a_judge_uncertain_limit_on_a_measure_that_reads_no_labels_is_refused(
    tmp_path: Path,
) -> None:
    # only claim_support and fact_coverage read review labels: on another measure the rule's
    # own limit was read by nothing (the policy's default may apply to every rule)
    path = _write(
        tmp_path,
        "[defaults]\nmax_judge_uncertain = 0.2\n"
        '[[threshold]]\nmetric = "evidence_recall"\nmin = 0.5\nmax_judge_uncertain = 0.1\n'
        '[[threshold]]\nmetric = "claim_support"\nmin = 0.5\nmax_judge_uncertain = 0.1\n',
    )
    assert _messages(path) == [
        f"{path}: threshold[0].max_judge_uncertain: expected none on a measure that reads no "
        "review labels (claim_support, fact_coverage read them); found 0.1 on evidence_recall"
    ]


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
    assert messages[0].endswith("; found 'evidence_recal' (did you mean 'evidence_recall'?)")
    assert messages[1].startswith(
        f"{path}: block[0].stage: expected a diagnosis stage (permission_leak, "
    )
    assert messages[1].endswith("; found 'retrieval_mis' (did you mean 'retrieval_miss'?)")
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


def test_a_malformed_field_does_not_hide_the_meaning_problems_of_its_siblings(
    tmp_path: Path,
) -> None:
    # every kind of rule: a wrongly typed field is reported, and every well-formed field of
    # the same rule is still checked; a check reading a malformed field is not run
    path = _write(
        tmp_path,
        """
[[block]]
stage = "retrieval_mis"
slice = 3
[[block]]
stage = ["permission_leak"]
slice = "tags:x"
max_questions = -1
[[threshold]]
metric = "evidence_recal"
min = "high"
[[threshold]]
metric = 5
slice = "everything"
min = 2
max = 1
[[threshold]]
metric = "ndcg@10"
min = 85
max = "low"
[[drop]]
metric = "fact_coverag"
significant = "yes"
[[drop]]
metric = "fact_coverage"
max_drop = 3
alpha = 2
[[sensitive]]
where = "subject"
slice = "tag:"
[no_regression]
splits = ["nightly"]
tags = "fixed"
[latency]
max_missing = "some"
""",
    )
    metrics = ", ".join(sorted(REGISTRY))
    stages = ", ".join(s for s in stage_order() if s != "ok")
    slices = "`all`, `tag:NAME` or `split:dev|regression|holdout`"
    assert _messages(path) == [
        f"{path}: block[0].slice: expected a valid string; found 3",
        f"{path}: block[1].stage: expected a valid string; found [\"permission_leak\"]",
        f"{path}: block[1].max_questions: expected greater than or equal to 0; found -1",
        f"{path}: no_regression.tags: expected a valid list; found 'fixed'",
        f"{path}: threshold[0].min: expected a valid number; found 'high'",
        f"{path}: threshold[1].metric: expected a valid string; found 5",
        f"{path}: threshold[2].max: expected a valid number; found 'low'",
        f"{path}: drop[0].significant: expected true or false; found 'yes'",
        f"{path}: drop[1].alpha: expected less than 1; found 2",
        f"{path}: latency.max_missing: expected a valid number; found 'some'",
        f"{path}: sensitive[0].where: expected 'answer', 'context' or 'any'; found 'subject'",
        f"{path}: threshold[0].metric: expected one of {metrics}; found 'evidence_recal' "
        "(did you mean 'evidence_recall'?)",
        f"{path}: drop[0].metric: expected one of {metrics}; found 'fact_coverag' "
        "(did you mean 'fact_coverage'?)",
        f"{path}: block[0].stage: expected a diagnosis stage ({stages}); "
        "found 'retrieval_mis' (did you mean 'retrieval_miss'?)",
        f"{path}: block[1].slice: expected {slices}; found 'tags:x'",
        f"{path}: threshold[1].slice: expected {slices}; found 'everything'",
        f"{path}: sensitive[0].slice: expected {slices}; found 'tag:'",
        f"{path}: threshold[1]: expected min <= max; found min 2, max 1",
        f"{path}: threshold[2].min: expected a bound from 0 to 1 (ndcg range); found 85",
        f"{path}: drop[1].max_drop: expected an allowed drop from 0 to 1 (fact_coverage range); "
        "found 3",
        f"{path}: no_regression.splits[0]: expected dev, regression or holdout; found 'nightly'",
        f"{path}: latency: expected `p50_ms`, `p95_ms` or both; found neither",
    ]


def test_a_malformed_split_does_not_hide_the_other_splits_problems(tmp_path: Path) -> None:
    # one malformed element made the whole list malformed, so no split of it was checked
    path = _write(tmp_path, '[no_regression]\nsplits = ["nightly", 3, "regression", "weekly"]\n')
    assert _messages(path) == [
        f"{path}: no_regression.splits[1]: expected a valid string; found 3",
        f"{path}: no_regression.splits[0]: expected dev, regression or holdout; found 'nightly'",
        f"{path}: no_regression.splits[3]: expected dev, regression or holdout; found 'weekly'",
    ]
    # the "protects nothing" check reads the whole list, so it waits for the malformed one
    path = _write(tmp_path, "[no_regression]\nsplits = [3]\ntags = []\n")
    assert _messages(path) == [f"{path}: no_regression.splits[0]: expected a valid string; found 3"]


def test_a_missing_required_field_does_not_hide_its_siblings_problems(tmp_path: Path) -> None:
    # a rule without its metric or stage still has its slice and bounds checked; its
    # "neither bound" check runs, as both bounds are well-formed (absent)
    path = _write(
        tmp_path,
        """
[[threshold]]
slice = "tag:"
[[block]]
slice = "nowhere"
[[drop]]
""",
    )
    slices = "`all`, `tag:NAME` or `split:dev|regression|holdout`"
    assert _messages(path) == [
        f"{path}: block[0].stage: expected a value (required field); found nothing",
        f"{path}: threshold[0].metric: expected a value (required field); found nothing",
        f"{path}: drop[0].metric: expected a value (required field); found nothing",
        f"{path}: block[0].slice: expected {slices}; found 'nowhere'",
        f"{path}: threshold[0].slice: expected {slices}; found 'tag:'",
        f"{path}: threshold[0]: expected `min`, `max` or both; found neither",
        f"{path}: drop[0]: expected `max_drop`, `significant = true` or both; found neither",
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


def test_a_bound_just_past_the_range_is_shown_in_full_digits(tmp_path: Path) -> None:
    # Six digits showed `found 1`, a bound inside the range it was refused for.
    path = _write(tmp_path, '[[threshold]]\nmetric = "ndcg@10"\nmax = 1.0000000000000002\n')
    assert _messages(path) == [
        f"{path}: threshold[0].max: expected a bound from 0 to 1 (ndcg range); "
        "found 1.0000000000000002"
    ]
