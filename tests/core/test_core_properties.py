"""Property tests: bounds, question-order invariance, ID-renaming invariance, recall monotone in k."""

from __future__ import annotations

import copy
from typing import Any

from core_builders import evaluate_one
from core_strategies import datasets
from hypothesis import HealthCheck, given, settings, strategies as st

from ragtriage.evaluation import Evaluation
from ragtriage.metrics import REGISTRY

PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALL = [f"{name}@3" if spec.params else name for name, spec in sorted(REGISTRY.items())]


def _summary(ev: Evaluation) -> dict[str, tuple[Any, ...]]:
    def r(x: float | None) -> float | None:
        return None if x is None else round(x, 9)

    return {
        name: (r(a.value), r(a.numerator), r(a.denominator), a.not_applicable, a.averaging)
        for name, a in ev.runs[0].summary.items()
    }


def _per_question(ev: Evaluation) -> dict[str, dict[str, float | None]]:
    return {
        rec.question_id: {n: None if s is None else round(s.value, 9) for n, s in rec.scores.items()}
        for rec in ev.runs[0].questions
    }


@PROPS
@given(datasets())
def test_values_are_within_bounds(data: Any) -> None:
    docs, questions, results = data
    ev = evaluate_one(docs, questions, results, metrics=ALL)
    for rec in ev.runs[0].questions:
        for name, score in rec.scores.items():
            if score is not None:
                assert score.denominator > 0, name
                assert 0.0 <= score.value <= 1.0, name
    for name, agg in ev.runs[0].summary.items():
        assert agg.value is None or 0.0 <= agg.value <= 1.0, name
        assert (agg.value is None) == (agg.denominator == 0), name
        assert 0 <= agg.not_applicable <= len(questions), name


@PROPS
@given(datasets(), st.randoms(use_true_random=False))
def test_question_order_does_not_matter(data: Any, rnd: Any) -> None:
    docs, questions, results = data
    before = evaluate_one(docs, questions, results, metrics=ALL)
    q2, r2 = list(questions), list(results)
    rnd.shuffle(q2)
    rnd.shuffle(r2)
    after = evaluate_one(docs, q2, r2, metrics=ALL)
    assert _summary(after) == _summary(before)
    assert _per_question(after) == _per_question(before)


def _rename(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: _rename(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, mapping) for v in value]
    if isinstance(value, str):
        return mapping.get(value, value)
    return value


@PROPS
@given(datasets(), st.permutations(range(6)))
def test_renaming_ids_does_not_matter(data: Any, perm: list[int]) -> None:
    docs, questions, results = data
    mapping = {f"d{i}": f"doc-{perm[i]}-{'x' * perm[i]}" for i in range(6)}
    mapping.update({q["id"]: f"question-{n}-renamed" for n, q in enumerate(questions)})
    mapping.update({f"f{j}": f"fact-{j}-renamed" for j in range(3)})
    renamed = [_rename(copy.deepcopy(part), mapping) for part in (docs, questions, results)]
    before = evaluate_one(docs, questions, results, metrics=ALL)
    after = evaluate_one(*renamed, metrics=ALL)
    assert _summary(after) == _summary(before)
    assert _per_question(after) == {mapping[q]: v for q, v in _per_question(before).items()}


@PROPS
@given(datasets(retrieval_only=True), st.integers(min_value=1, max_value=6), st.integers(min_value=0, max_value=6))
def test_evidence_recall_is_monotone_in_k(data: Any, k: int, extra: int) -> None:
    docs, questions, results = data
    small = evaluate_one(docs, questions, results, k=k)
    large = evaluate_one(docs, questions, results, k=k + extra)
    for a, b in zip(small.runs[0].questions, large.runs[0].questions, strict=True):
        sa, sb = a.scores["evidence_recall"], b.scores["evidence_recall"]
        assert (sa is None) == (sb is None)
        if sa is not None and sb is not None:
            assert sa.value <= sb.value
