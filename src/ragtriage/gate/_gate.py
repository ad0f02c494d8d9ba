"""`gate`: check one run against a release policy; every rule reports what it saw and its verdict.

Rules fail closed: a metric without a value, a slice without questions, too many questions
without a value or with uncertain labels, or missing latency/cost records all fail the rule.
Rules that need a baseline are reported as skipped when none is given (unless the policy
requires one).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from functools import partial

from ..compare import (
    Comparison,
    MetricComparison,
    check_arguments,
    check_comparable,
    compare,
    run_stages,
    select_runs,
)
from ..errors import RequestError, counted
from ..evaluation import Evaluation, QuestionRecord, RunEvaluation, slice_rows
from ..fileio import file_problem
from ..metrics import fraction_text, parse_measure, value_text
from ..schemas import question_slices
from ..validation import GATE_RESAMPLES_DEFAULT, PERMUTATIONS_DEFAULT
from ._budgets import budget_rules
from ._policy_format import (
    LABEL_LAYERS,
    BlockRule,
    DropRule,
    LoadedPolicy,
    SensitiveRule,
    ThresholdRule,
)
from ._verdict import GateResult, RuleResult, Verdict, beyond, bound_text, share_beyond

DROP_MARGIN = 1e-12
"""A drop rule fails on a drop above `max_drop` plus this: a drop is a difference of two
floats and carries their rounding (0.8 - 0.7 is 0.10000000000000009, which `max_drop = 0.1`
allows). Absolute: every metric lies in 0..1. Thresholds compare their own value exactly."""


def _members(run: RunEvaluation) -> Callable[[str], list[QuestionRecord]]:
    """The run's questions in `all`, `tag:NAME` or `split:NAME`, in order: each slice's rows
    found once for every rule (`evaluation.slice_rows`)."""
    rows = slice_rows(run.questions)
    questions = run.questions

    def members(key: str) -> list[QuestionRecord]:
        if key == "all":
            return list(questions)
        return [questions[row] for row in rows[key].tolist()] if key in rows else []

    return members


def _slice_suffix(slice_name: str) -> str:
    """The ` in SLICE` suffix of a default rule name (nothing for all questions)."""
    return "" if slice_name == "all" else f" in {slice_name}"


_EMPTY = "{} holds no question (fail closed)"
"""The detail of a rule whose slice holds no question: it checks nothing, so it fails."""
_NONE = "no questions"
"""The observation of a rule whose slice holds no question (its observed value is None)."""


def _counted(
    rule: BlockRule | SensitiveRule,
    kind: str,
    default_name: str,
    members: int,
    hits: tuple[str, ...],
    what: str,
    listed: str,
) -> RuleResult:
    """The result of a rule that allows at most `rule.max_questions` hit questions of the
    `members` of its slice (none: the rule checks nothing, and fails closed). Its detail counts
    the hits, says `what` they are, and lists them (`listed`)."""
    detail = f"{len(hits)} of {counted(members, 'question')} {what}"
    if not members:
        detail = _EMPTY.format(rule.slice)
    elif hits:
        detail += ": " + listed
    verdict: Verdict = "fail" if len(hits) > rule.max_questions or not members else "pass"
    return RuleResult(
        rule.name or default_name + _slice_suffix(rule.slice),
        kind,
        verdict,
        float(len(hits)) if members else None,  # a count of nothing is not applicable, not 0
        f"{len(hits)}/{members} questions" if members else _NONE,
        f"at most {counted(rule.max_questions, 'question')}",
        detail,
        hits,
    )


def _block(
    rule: BlockRule, run: RunEvaluation, slice_of: Callable[[str], list[QuestionRecord]]
) -> RuleResult:
    members = [r.question_id for r in slice_of(rule.slice)]
    stages = run_stages(run)
    hits = tuple(q for q in members if q in stages and rule.stage in stages[q].stages)
    what = f"in {rule.slice} diagnosed {rule.stage}"
    return _counted(rule, "block", f"no {rule.stage}", len(members), hits, what, ", ".join(hits))


def _sensitive(
    rule: SensitiveRule, slice_of: Callable[[str], list[QuestionRecord]]
) -> RuleResult:
    # Findings come from evaluate's per-question details: detector and span, never the value.
    keys = {"answer": ("sensitive_answer",), "context": ("sensitive_context",)}
    wanted = keys.get(rule.where, ("sensitive_answer", "sensitive_context"))
    where = {"answer": "in the answer", "context": "in the context"}.get(rule.where, "anywhere")
    members = slice_of(rule.slice)
    hits = tuple(r.question_id for r in members if any(r.details.get(k) for k in wanted))
    found = [
        f"{r.question_id} ({', '.join(f for k in wanted for f in r.details.get(k, ()))})"
        for r in members
        if r.question_id in hits
    ]
    what = f"with a sensitive value {where}"
    name = f"no sensitive values {where}"
    return _counted(rule, "sensitive", name, len(members), hits, what, "; ".join(found))


def _no_regression(
    policy: LoadedPolicy, run: RunEvaluation, comparison: Comparison | None
) -> RuleResult | None:
    rule = policy.policy.no_regression
    if rule is None:
        return None
    scope = [f"split {s}" for s in rule.splits] + [f"tag {t}" for t in rule.tags]
    name = rule.name or "no regression on protected questions"
    limit = "no regression on questions in " + " or ".join(scope)
    result = partial(RuleResult, name, "no_regression", limit=limit)
    if comparison is None:
        return result("skipped", None, "no baseline", detail="needs --baseline")
    keys = {*(f"split:{s}" for s in rule.splits), *(f"tag:{t}" for t in rule.tags)}
    protected = [
        q
        for q in comparison.pairs[0].questions
        if not keys.isdisjoint(question_slices(q.tags, q.split))
    ]
    bad = tuple(q.question_id for q in protected if q.status in ("regressed", "mixed"))
    changes = [
        q.stage_change or q.question_id for q in protected if q.status in ("regressed", "mixed")
    ]
    detail = f"{len(bad)} of {counted(len(protected), 'protected question')} regressed"
    if not protected:
        detail = f"no paired question in {' or '.join(scope)} (fail closed)"
    elif changes:
        detail += ": " + "; ".join(changes)
    verdict: Verdict = "fail" if bad or not protected else "pass"
    if not protected:
        return result(verdict, None, "no protected questions", detail=detail)
    observed = f"{len(bad)}/{len(protected)} regressed"
    return result(verdict, float(len(bad)), observed, detail=detail, questions=bad)


def _threshold(
    rule: ThresholdRule, policy: LoadedPolicy, run: RunEvaluation,
    slice_of: Callable[[str], list[QuestionRecord]],
) -> RuleResult:
    measure = parse_measure(rule.metric)
    given = ((">=", rule.min), ("<=", rule.max))
    bounds = [f"{op} {bound_text(bound)}" for op, bound in given if bound is not None]
    name = rule.name or f"{measure.name} {' and '.join(bounds)}" + _slice_suffix(rule.slice)
    members = slice_of(rule.slice)
    agg = (
        run.summary.get(measure.name)
        if rule.slice == "all"
        else run.slices.get(rule.slice, {}).get(measure.name)
    )
    defaults = policy.policy.defaults
    max_na, max_unc = (  # the rule's own share limit, else the policy's default
        getattr(defaults, f) if getattr(rule, f) is None else getattr(rule, f)
        for f in ("max_not_applicable", "max_judge_uncertain")
    )
    result = partial(RuleResult, name, "threshold", limit=" and ".join(bounds))
    if not members or agg is None:
        return result("fail", None, _NONE, detail=_EMPTY.format(rule.slice))
    observed = f"{value_text(agg.value)} ({fraction_text(agg)}, {agg.averaging})"
    na_share = agg.not_applicable / len(members)
    # Uncertain for this measure: a label it reads (claims for support, facts for coverage)
    # is uncertain; another layer's uncertain labels do not make it so.
    uncertain = tuple(r.question_id for r in members if r.uncertain.get(measure.name, 0) > 0)
    unc_share = len(uncertain) / len(members)
    problems: list[str] = []
    if max_na is not None and na_share > max_na:
        problems.append(
            f"{agg.not_applicable}/{len(members)} questions not applicable "
            f"({share_beyond(na_share, max_na)}; fail closed)"
        )
    if max_unc is not None and measure.spec.layer in LABEL_LAYERS and unc_share > max_unc:
        problems.append(
            f"{len(uncertain)}/{len(members)} questions with uncertain labels "
            f"({share_beyond(unc_share, max_unc)}; fail closed)"
        )
    if agg.value is None:
        problems.append("not applicable to any question (fail closed)")
    else:
        if rule.min is not None and agg.value < rule.min:
            problems.append(beyond(agg.value, "<", rule.min, ".3f"))
        if rule.max is not None and agg.value > rule.max:
            problems.append(beyond(agg.value, ">", rule.max, ".3f"))
    verdict: Verdict = "fail" if problems else "pass"
    within = f"within bounds over {counted(len(members), 'question')}"
    detail = "; ".join(problems) if problems else within
    questions = uncertain if problems and uncertain else ()
    return result(verdict, agg.value, observed, detail=detail, questions=questions)


def _drop(rule: DropRule, policy: LoadedPolicy, comparison: Comparison | None) -> RuleResult:
    measure = parse_measure(rule.metric)
    alpha = rule.alpha if rule.alpha is not None else policy.policy.defaults.alpha
    parts = []
    if rule.max_drop is not None:
        parts.append(f"drop <= {bound_text(rule.max_drop)}")
    if rule.significant:
        prefix = "or not " if rule.max_drop is not None else "no "
        parts.append(f"{prefix}significant drop (p < {bound_text(alpha)})")
    limit = " ".join(parts) if rule.max_drop is None else ", ".join(parts)
    result = partial(RuleResult, rule.name or f"{measure.name} {limit}", "drop", limit=limit)
    if comparison is None:
        return result("skipped", None, "no baseline", detail="needs --baseline")
    found: MetricComparison | None = next(
        (m for m in comparison.pairs[0].metrics if m.metric == measure.name), None
    )
    if found is None or found.difference is None:
        detail = "no question has a value in both runs (fail closed)"
        return result("fail", None, "no paired questions", detail=detail)
    # + 0.0: no change is a drop of 0.0, not -0.0 (which JSON would show)
    drop = (-found.difference if found.direction == "higher" else found.difference) + 0.0
    p = found.test.p_value if found.test is not None else 1.0
    test = found.test.name if found.test is not None else "none"
    exceeds = drop > (rule.max_drop if rule.max_drop is not None else 0.0) + DROP_MARGIN
    failed = exceeds and (not rule.significant or (drop > 0 and p < alpha))
    moved = f"{'drop' if drop > 0 else 'gain'} {abs(drop):.3f}" if drop else "no change"
    observed = f"{moved} ({value_text(found.base)} -> {value_text(found.candidate)}, p={p:.3g})"
    detail = f"{moved} over {counted(found.paired, 'paired question')}; p = {p:.3g} ({test})"
    return result("fail" if failed else "pass", drop, observed, detail=detail)


def _fail_non_finite(result: RuleResult) -> RuleResult:
    """A rule whose observation is NaN or infinite fails closed: every comparison with NaN
    is false (so `value > budget` would pass), and JSON has no spelling for either."""
    if result.observed is None or math.isfinite(result.observed):
        return result
    found = f"not a finite number ({result.observed!r})"
    return dataclasses.replace(
        result,
        verdict="fail",
        observed=None,
        observed_text=found,
        detail=f"the observed value is {found} (fail closed); {result.detail}",
    )


def _unique(results: Sequence[RuleResult]) -> tuple[RuleResult, ...]:
    """Each rule under its own name: a repeated name gets the lowest free number (`X #2`,
    or `X #3` when another rule is named `X #2`), so JUnit has one test case per name."""
    taken = {r.name for r in results}
    seen: set[str] = set()
    out = []
    for r in results:
        if r.name in seen:
            number = 2
            while f"{r.name} #{number}" in taken:
                number += 1
            r = dataclasses.replace(r, name=f"{r.name} #{number}")
            taken.add(r.name)
        seen.add(r.name)
        out.append(r)
    return tuple(out)


def gate(
    evaluation: Evaluation,
    policy: LoadedPolicy,
    run: str,
    baseline: str | None = None,
    *,
    seed: int = 0,
    resamples: int = GATE_RESAMPLES_DEFAULT,
    permutations: int = PERMUTATIONS_DEFAULT,
) -> GateResult:
    """Apply every rule of `policy` to run `run` (against `baseline` for the baseline rules)."""
    # Checked without a baseline too (then unused), as the command line's options are.
    check_arguments(evaluation, seed, resamples, permutations, 0.95)
    # A measure not scored would read as a slice without questions.
    unscored = [n for n in policy.metrics() if n not in {m.name for m in evaluation.measures}]
    if unscored:
        raise RequestError(
            f"evaluation: expected every measure policy {policy.path} reads; found no "
            f"{', '.join(unscored)} (evaluate with metrics=[...] naming them)"
        )
    names = [run] if baseline is None else [baseline, run]
    selected = select_runs(evaluation, names)
    target = selected[-1]
    if baseline is None and policy.policy.require_baseline:
        expected = f"a baseline run (policy {policy.path} sets require_baseline)"
        raise file_problem("<command line>", expected, "none given", "--baseline")
    comparison = None
    if baseline is not None:
        check_comparable(selected, evaluation.allow_missing, None)
        comparison = compare(
            evaluation,
            names,
            seed=seed,
            resamples=resamples,
            permutations=permutations,
            allow_missing=evaluation.allow_missing,
            group=False,
        )
    slice_of = _members(target)
    results: list[RuleResult] = [_block(rule, target, slice_of) for rule in policy.policy.block]
    regression = _no_regression(policy, target, comparison)
    if regression is not None:
        results.append(regression)
    results += [_threshold(rule, policy, target, slice_of) for rule in policy.policy.threshold]
    results += [_drop(rule, policy, comparison) for rule in policy.policy.drop]
    results += budget_rules(policy, target)
    results += [_sensitive(rule, slice_of) for rule in policy.policy.sensitive]
    p = policy.policy
    return GateResult(
        p.name,
        policy.path,
        policy.sha256,
        target.name,
        baseline,
        len(target.questions),
        _unique([_fail_non_finite(r) for r in results]),
        evaluation.sources,
        no_result=target.no_result,
        selection=evaluation.selection,
    )
