"""Latency and cost budgets: percentiles of latency_ms and mean cost_usd, failing closed."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Literal

import numpy as np

from ..errors import counted
from ..evaluation import RunEvaluation
from ._policy_format import LoadedPolicy
from ._verdict import RuleResult, Verdict, beyond, bound_text, percent_text


def _records(
    run: RunEvaluation, field: Literal["latency_ms", "cost_usd"]
) -> tuple[list[float], list[str]]:
    values, missing = [], []
    for record in run.questions:
        value = getattr(record, field)
        if value is None:
            missing.append(record.question_id)
        else:
            values.append(float(value))
    return values, missing


def _percentile(q: int) -> Callable[[Sequence[float]], float]:
    # numpy's default (linear interpolation between closest ranks)
    return lambda values: float(np.percentile(values, q))


def budget_rules(policy: LoadedPolicy, run: RunEvaluation) -> list[RuleResult]:
    """The latency (p50/p95) and cost rules of a policy applied to one run."""
    out = []
    latency = policy.policy.latency
    if latency is not None:
        values, missing = _records(run, "latency_ms")
        for label, budget, q in (("p50", latency.p50_ms, 50), ("p95", latency.p95_ms, 95)):
            if budget is None:
                continue
            name = f"latency {label} <= {bound_text(budget)} ms"
            args = (values, missing, latency.max_missing, _percentile(q), budget, "ms")
            out.append(_budget(name, "latency", *args))
    cost = policy.policy.cost
    if cost is not None:
        values, missing = _records(run, "cost_usd")
        name = f"mean cost per question <= ${bound_text(cost.max_mean_usd)}"
        args = (values, missing, cost.max_missing, _mean, cost.max_mean_usd, "USD")
        out.append(_budget(name, "cost", *args))
    return out


def _mean(values: Sequence[float]) -> float:
    """The exactly rounded sum over the count; each value divided first where the sum passes
    the largest float (costs near 1e308 have a mean, not an `OverflowError`)."""
    try:
        return math.fsum(values) / len(values)
    except OverflowError:
        return math.fsum(value / len(values) for value in values)


def _budget(
    name: str,
    kind: str,
    values: Sequence[float],
    missing: Sequence[str],
    max_missing: float,
    statistic: Callable[[Sequence[float]], float],
    budget: float,
    unit: str,
) -> RuleResult:
    unrecorded = f"at most {percent_text(max_missing)} of questions unrecorded"
    limit = f"<= {bound_text(budget)} {unit}, {unrecorded}"
    result = partial(RuleResult, name, kind, limit=limit)
    if not values:
        detail = f"no question records {kind} (fail closed)"
        return result("fail", None, "nothing recorded", detail=detail, questions=tuple(missing))
    observed = float(statistic(values))
    total = len(values) + len(missing)
    problems = []
    if total and len(missing) / total > max_missing:
        problems.append(f"{len(missing)}/{total} questions unrecorded (fail closed)")
    if observed > budget:
        problems.append(beyond(observed, ">", budget, unit=f" {unit}"))
    over = f"{observed:g} {unit} over {counted(len(values), 'question')}"
    detail = "; ".join(problems) if problems else over
    questions = tuple(missing) if problems and missing else ()
    verdict: Verdict = "fail" if problems else "pass"
    return result(verdict, observed, f"{observed:g} {unit}", detail=detail, questions=questions)
