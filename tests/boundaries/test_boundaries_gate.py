"""The gate's sensitive-content rule and the permission functions a gate calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtriage.columnar import load_and_evaluate
from ragtriage.errors import InputError
from ragtriage.evaluation import Evaluation
from ragtriage.example import example_paths
from ragtriage.gate import gate, load_policy


@pytest.fixture(scope="module")
def example() -> Evaluation:
    paths = example_paths()
    return load_and_evaluate(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)


def _policy(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text('name = "boundaries"\n' + body, encoding="utf-8")
    return path


def test_sensitive_rule_fails_on_the_card_number_in_an_answer(
    example: Evaluation, tmp_path: Path
) -> None:
    policy = load_policy(_policy(tmp_path, '[[sensitive]]\nwhere = "answer"\n'))
    [rule] = gate(example, policy, "baseline").rules
    assert (rule.name, rule.kind, rule.verdict, rule.observed) == (
        "no sensitive values in the answer", "sensitive", "fail", 1.0,
    )
    assert rule.detail == (
        "1 of 17 questions with a sensitive value in the answer: refund (card_number[57:76])"
    )
    assert rule.questions == ("refund",)
    [passed] = gate(example, policy, "improved").rules
    assert (passed.verdict, passed.observed_text) == ("pass", "0/17 questions")


def test_sensitive_rule_fields_are_checked(tmp_path: Path) -> None:
    path = _policy(tmp_path, '[[sensitive]]\nwhere = "everywhere"\n')
    with pytest.raises(InputError) as caught:
        load_policy(path)
    assert [p.message() for p in caught.value.problems] == [
        f"{path}: sensitive[0].where: expected 'answer', 'context' or 'any'; found 'everywhere'"
    ]
    path = _policy(tmp_path, '[[sensitive]]\nslice = "x"\n')
    with pytest.raises(InputError) as caught:
        load_policy(path)
    assert [p.message() for p in caught.value.problems] == [
        f"{path}: sensitive[0].slice: expected `all`, `tag:NAME` or "
        "`split:dev|regression|holdout`; found 'x'"
    ]


def test_blocking_permission_leaks_for_gates(example: Evaluation) -> None:
    baseline, improved = example.runs
    [leak] = baseline.boundaries.permissions.blocking
    assert (leak.question_id, leak.leaked, leak.blocking) == (
        "pricing", ("finance-discounts",), True,
    )
    assert improved.boundaries.permissions.blocking == ()
