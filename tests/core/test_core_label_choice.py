"""The one label choice (`schemas.counted_labels`): which labels of a claim or fact count
under each label policy, for models and raw records alike; and the verdict they give
(`schemas.agreed_verdict`)."""

from __future__ import annotations

from typing import Any

import pytest

from ragtriage.schemas import ClaimLabel, LabelPolicy, agreed_verdict, counted_labels

H1, H2, J1 = ("human", "ann"), ("human", "bo"), ("judge", "j")
CASES: list[tuple[tuple[tuple[str, str], ...], dict[LabelPolicy, list[str]]]] = [
    ((), {"human-first": [], "human": [], "judge": []}),
    ((H1,), {"human-first": ["ann"], "human": ["ann"], "judge": []}),
    ((J1,), {"human-first": ["j"], "human": [], "judge": ["j"]}),
    ((J1, H1, H2), {"human-first": ["ann", "bo"], "human": ["ann", "bo"], "judge": ["j"]}),
    ((J1, J1), {"human-first": ["j", "j"], "human": [], "judge": ["j", "j"]}),
]


def _record(kind: str, name: str) -> dict[str, Any]:
    return {"verdict": "unsupported", "labeller": {"kind": kind, "name": name}}


@pytest.mark.parametrize(("labellers", "expected"), CASES)
def test_each_policy_counts_these_labels(
    labellers: tuple[tuple[str, str], ...], expected: dict[LabelPolicy, list[str]]
) -> None:
    records = [_record(kind, name) for kind, name in labellers]
    models = [ClaimLabel.model_validate(r) for r in records]
    for policy, names in expected.items():
        from_records = counted_labels(records, policy, lambda r: r["labeller"]["kind"])
        from_models = counted_labels(models, policy, lambda m: m.labeller.kind)
        assert [r["labeller"]["name"] for r in from_records] == names, policy
        assert [m.labeller.name for m in from_models] == names, policy


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ([], None),
        (["supported"], "supported"),
        (["covered", "covered"], "covered"),
        (["cannot_judge", "cannot_judge"], "cannot_judge"),
        (["supported", "unsupported"], "cannot_judge"),
        (["not_covered", "covered", "not_covered"], "cannot_judge"),
    ],
)
def test_the_counted_labels_give_the_verdict_they_agree_on(
    verdicts: list[str], expected: str | None
) -> None:
    assert agreed_verdict(verdicts) == expected
