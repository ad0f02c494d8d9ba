"""Registry-driven checks over every metric (in the spirit of scikit-learn's test_common).

A metric registered without a complete specification, outside the known layers, missing from
the generated docs, or producing values outside its `value_range` on generated data fails here.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest
from core_builders import evaluate_one
from core_strategies import datasets
from hypothesis import HealthCheck, given, settings

from ragtriage.metrics import REGISTRY, MetricSpec, parse_measure
from ragtriage.metrics._registry import LAYER_ORDER, Layer

ROOT = Path(__file__).resolve().parents[2]
KNOWN_PARAMS = {"k"}
TEXT_FIELDS = ("summary", "formula", "denominator", "not_applicable")


def spec_problems(spec: MetricSpec) -> list[str]:
    """Everything incomplete or inconsistent about one metric's specification."""
    problems = []
    if not re.fullmatch(r"[a-z][a-z0-9_]*", spec.name):
        problems.append(f"name {spec.name!r} is not lower_snake_case")
    if spec.layer not in typing.get_args(Layer) or spec.layer not in LAYER_ORDER:
        problems.append(f"layer {spec.layer!r} is not a known layer in LAYER_ORDER")
    if spec.direction not in ("higher", "lower"):
        problems.append(f"direction {spec.direction!r}")
    if spec.averaging not in ("macro", "micro"):
        problems.append(f"averaging {spec.averaging!r}")
    if spec.kind not in ("ratio", "boolean"):
        problems.append(f"kind {spec.kind!r}")
    if spec.kind == "boolean" and spec.averaging != "macro":
        problems.append("a boolean metric must be a macro rate")
    for name in TEXT_FIELDS:
        value = getattr(spec, name)
        if not isinstance(value, str) or len(value.strip()) < 5:
            problems.append(f"{name} is missing or too short")
    if not spec.requires or not all(isinstance(r, str) and r for r in spec.requires):
        problems.append("requires lists no input field")
    unknown = set(spec.params) - KNOWN_PARAMS
    if unknown:
        problems.append(f"unknown parameters {sorted(unknown)}")
    return problems


def measure_name(spec: MetricSpec) -> str:
    return spec.name + "".join("@3" for _ in spec.params)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_spec_is_complete(name: str) -> None:
    assert spec_problems(REGISTRY[name]) == []


def test_an_incomplete_spec_is_caught() -> None:
    broken = MetricSpec(
        name="Bad-Name", layer="nowhere", direction="up", averaging="mean", kind="score",  # type: ignore[arg-type]
        summary="", formula="x", denominator="", not_applicable="", requires=(),
        params=("z",),
    )
    assert len(spec_problems(broken)) == 11


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_spec_is_documented_and_parseable(name: str) -> None:
    spec = REGISTRY[name]
    docs = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    canonical = spec.name + "".join(f"@{p}" for p in spec.params)
    assert f"### `{canonical}`" in docs, "regenerate: python -m ragtriage.metrics._docs > docs/metrics.md"
    assert parse_measure(measure_name(spec)).name == measure_name(spec)


@pytest.mark.parametrize("name", sorted(REGISTRY))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=datasets())
def test_metric_obeys_bounds_on_generated_data(name: str, data: Any) -> None:
    spec = REGISTRY[name]
    low, high = spec.value_range  # the range gate policies are checked against
    docs, questions, results = data
    measure = measure_name(spec)
    ev = evaluate_one(docs, questions, results, metrics=[measure])
    values = []
    for rec in ev.runs[0].questions:
        score = rec.scores[measure]
        if score is None:
            continue
        assert score.denominator > 0
        assert low <= score.value <= high
        if spec.kind == "boolean":
            assert (score.numerator, score.denominator) in ((0, 1), (1, 1))
        values.append(score)
    agg = ev.runs[0].summary[measure]
    assert agg.averaging == spec.averaging
    assert agg.not_applicable == len(questions) - len(values)
    assert (agg.value is None) == (agg.denominator == 0)
    assert agg.value is None or low <= agg.value <= high
