"""`compare` on hand-built datasets: statuses, stage changes, pairing, provenance, repeats."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from compare_builders import make_dataset, result

import ragtriage
from ragtriage import Evaluation, InputError, RequestError, evaluate
from ragtriage.compare import (
    Comparison,
    compare,
    comparison_json,
    render_comparison_markdown,
    render_comparison_table,
)
from ragtriage.compare._pairing import GroupValues
from ragtriage.compare._stages import modal_stage
from ragtriage.example import example_paths
from ragtriage.loading import Dataset
from ragtriage.schemas import (
    Document,
    EvidenceGroup,
    Question,
    QuestionResult,
    RankedItem,
)

Build = Callable[..., Dataset]


@pytest.fixture()
def build() -> Build:
    """The dataset builder (a fixture so tests read uniformly)."""
    return make_dataset


def miss(qid: str) -> QuestionResult:
    """A question whose evidence is missing: unsupported claim, fact not covered."""
    return result(qid, hit=False, supported=False, covered=False)


def test_questions_sorted_regressions_first_with_stage_changes(build: Build) -> None:
    ds = build(
        {
            "base": ({}, {"q1": miss("q1")}),
            "cand": ({}, {"q2": miss("q2")}),
        }
    )
    pair = compare(evaluate(ds), resamples=200).pairs[0]
    assert [(q.question_id, q.status, q.stage_change) for q in pair.questions] == [
        ("q2", "regressed", "q2: ok -> retrieval_miss"),
        ("q1", "improved", "q1: retrieval_miss -> ok"),
        ("q3", "unchanged", "q3: ok -> ok"),
        ("q4", "unchanged", "q4: ok -> ok"),
        ("q5", "unchanged", "q5: ok -> ok"),
    ]
    q2 = pair.questions[0]
    moved = {
        m.metric: (m.base, m.candidate, m.status)
        for m in q2.metrics
        if m.status in ("improved", "regressed")
    }
    assert moved == {
        "evidence_recall": (1.0, 0.0, "regressed"),
        "fact_coverage": (1.0, 0.0, "regressed"),
        "claim_support": (1.0, 0.0, "regressed"),
    }
    assert q2.layers["retrieval"] == "regressed"
    assert q2.layers["refusal"] == "unchanged"
    assert (pair.count("regressed"), pair.count("improved"), pair.count("unchanged")) == (1, 1, 3)


def test_metric_difference_wins_ties_losses_and_test_choice(build: Build) -> None:
    ds = build(
        {
            "base": ({}, {"q1": miss("q1"), "q3": miss("q3")}),
            "cand": ({}, {"q2": miss("q2")}),
        }
    )
    comparison = compare(evaluate(ds), resamples=300)
    metrics = {m.metric: m for m in comparison.pairs[0].metrics}
    recall = metrics["evidence_recall"]
    assert (recall.base, recall.candidate) == (0.6, 0.8)
    assert recall.difference == pytest.approx(0.2)
    assert (recall.wins, recall.ties, recall.losses) == (2, 2, 1)
    assert (recall.paired, recall.unpaired) == (5, 0)
    assert recall.test is not None and recall.test.name == "sign_flip_exact"
    # differences +1, -1, +1: every one of the 8 sign patterns is at least as extreme
    assert recall.test.p_value == 1.0
    refusal = metrics["false_refusal"]
    assert refusal.test is not None and refusal.test.name == "mcnemar_exact"
    assert refusal.test.p_value == 1.0


def test_only_questions_with_values_on_both_sides_are_paired(build: Build) -> None:
    refused = result("q1", outcome="refused")
    ds = build({"base": ({}, {}), "cand": ({}, {"q1": refused})})
    metrics = {m.metric: m for m in compare(evaluate(ds), resamples=200).pairs[0].metrics}
    support = metrics["claim_support"]
    assert (support.paired, support.unpaired) == (4, 1)
    assert metrics["evidence_recall"].paired == 5


def test_provenance_single_change_is_not_confounded(build: Build) -> None:
    ds = build({"base": ({"k": 1}, {}), "cand": ({"prompt_version": "p2"}, {})})
    comparison = compare(evaluate(ds), resamples=200)
    diff = comparison.pairs[0].provenance
    assert [(d.condition, d.base, d.candidate) for d in diff.differences] == [
        ("prompt_version", None, "p2")
    ]
    assert not diff.confounded
    assert comparison.warnings == ()


def test_two_changes_are_a_confounded_comparison(build: Build) -> None:
    retriever = {"name": "bm25", "version": "1", "settings": {"top_k": 4}}
    ds = build(
        {
            "base": ({}, {}),
            "cand": ({"retriever": retriever, "prompt_version": "p2", "seed": 3}, {}),
        }
    )
    comparison = compare(evaluate(ds), resamples=200)
    assert comparison.pairs[0].provenance.changed == ("retriever", "prompt_version")
    assert comparison.warnings == (
        "base vs cand: confounded comparison: 2 conditions differ (retriever, prompt_version); "
        "a difference cannot be attributed to one of them",
    )
    data = comparison_json(comparison)
    assert data["comparisons"][0]["provenance"]["differences"][0] == {
        "condition": "retriever",
        "base": None,
        "candidate": "bm25 1 (top_k=4)",
    }


def test_different_snapshot_is_refused_unless_allowed(build: Build) -> None:
    ds = build({"base": ({}, {}), "cand": ({"snapshot_id": "snap-2"}, {})})
    evaluation = evaluate(ds)
    with pytest.raises(InputError) as caught:
        compare(evaluation, resamples=200)
    assert caught.value.render() == (
        "1 problem found in the input:\n"
        "- cand.json: provenance.snapshot_id: expected 'snap-1' as in base run 'base' "
        "(or pass --allow-different-snapshot); found 'snap-2'"
    )
    allowed = compare(evaluation, resamples=200, allow_different_snapshot=True)
    assert allowed.warnings == (
        "run 'cand' has snapshot_id 'snap-2', base 'base' has 'snap-1' "
        "(allowed by --allow-different-snapshot)",
    )


def test_different_question_set_is_refused_unless_allowed(build: Build) -> None:
    ds = build({"base": ({}, {}), "cand": ({"evalset_id": "set-2"}, {})})
    with pytest.raises(InputError) as caught:
        compare(evaluate(ds), resamples=200)
    assert [p.field for p in caught.value.problems] == ["provenance.evalset_id"]
    assert compare(evaluate(ds), resamples=200, allow_missing=True).pairs


def test_fewer_than_two_runs_and_unknown_names_are_input_errors(build: Build) -> None:
    evaluation = evaluate(build({"base": ({}, {}), "cand": ({}, {})}))
    with pytest.raises(InputError) as one:
        compare(evaluation, ["base"])
    assert one.value.problems[0].message() == (
        "<command line>: RUNS: expected at least two runs to compare; found 1 run"
    )
    with pytest.raises(InputError) as unknown:
        compare(evaluation, ["base", "nope"])
    assert unknown.value.problems[0].message() == (
        "<command line>: RUNS: expected the name of a loaded run (base, cand); found 'nope'"
    )


def test_repeats_are_grouped_with_mean_std_and_flaky_questions(build: Build) -> None:
    ds = build(
        {
            "a1": ({"seed": 1}, {}),
            "a2": ({"seed": 2}, {"q3": miss("q3")}),
            "b1": ({"seed": 1, "prompt_version": "p2"}, {}),
            "b2": ({"seed": 2, "prompt_version": "p2"}, {"q1": miss("q1")}),
        }
    )
    comparison = compare(evaluate(ds), resamples=300)
    base, cand = comparison.groups
    assert (base.label, base.runs, base.conditions["seed"]) == ("a1+a2", ("a1", "a2"), "1, 2")
    recall = next(r for r in base.repeats if r.metric == "evidence_recall")
    assert recall.mean == pytest.approx(0.9)
    assert recall.std == pytest.approx(0.1414213562, abs=1e-9)
    assert [(f.question_id, f.stages) for f in base.flaky] == [("q3", ("ok", "retrieval_miss"))]
    assert [f.question_id for f in cand.flaky] == ["q1"]
    pair = comparison.pairs[0]
    assert pair.provenance.changed == ("prompt_version",)
    assert not pair.provenance.confounded
    q1 = next(q for q in pair.questions if q.question_id == "q1")
    q1_recall = next(m for m in q1.metrics if m.metric == "evidence_recall")
    assert (q1_recall.base, q1_recall.candidate, q1_recall.status) == (1.0, 0.5, "regressed")
    metric = next(m for m in pair.metrics if m.metric == "evidence_recall")
    assert metric.test is not None and metric.test.name == "sign_flip_exact"
    assert metric.ci is not None and metric.ci.method.endswith(
        "repeats resampled within each drawn copy of a question"
    )


def test_a_group_pairs_every_question_some_repeat_answered_whatever_the_run_order(
    build: Build,
) -> None:
    # Before, a group read its first repeat's questions only: with b1 (no result for q1)
    # first, q1 was unpaired and its candidate value None, yet with b2 first it was paired
    # (and q4, which b2 has no result for, unpaired). Neither repeat has every question.
    ds = build(
        {
            "a1": ({"seed": 1}, {"q1": miss("q1")}),
            "a2": ({"seed": 2}, {"q1": miss("q1"), "q3": miss("q3")}),
            "b1": ({"seed": 1, "prompt_version": "p2"}, {"q2": miss("q2")}),
            "b2": ({"seed": 2, "prompt_version": "p2"}, {}),
        }
    )
    dropped = {"b1": "q1", "b2": "q4"}
    runs = tuple(
        run.model_copy(
            update={"results": [r for r in run.results if r.question_id != dropped[run.name]]}
        )
        if run.name in dropped else run
        for run in ds.runs
    )
    evaluation = evaluate(replace(ds, runs=runs), metrics=["evidence_recall"], allow_missing=True)

    def compared(names: list[str]) -> dict[str, Any]:
        # A group's runs are in name order whatever the order given, so the interval (its
        # resampling stream keyed by the labels) is the same too.
        found = comparison_json(
            compare(evaluation, names, resamples=200, allow_missing=True)
        )["comparisons"][0]
        return {key: found[key] for key in ("counts", "no_result", "metrics", "questions")}

    forward, backward = compared(["a1", "a2", "b1", "b2"]), compared(["a1", "a2", "b2", "b1"])
    assert forward == backward
    recall = forward["metrics"]["evidence_recall"]
    got = [recall[k] for k in ("paired", "unpaired", "base", "candidate", "difference")]
    assert got == [5, 0, 0.7, 0.9, 0.9 - 0.7]
    assert recall["test"]["p_value"] == 0.75
    assert [(q["id"], q["status"]) for q in forward["questions"]] == [
        ("q2", "regressed"), ("q1", "improved"), ("q3", "improved"), ("q4", "unchanged"),
        ("q5", "unchanged"),
    ]
    q1 = next(q for q in forward["questions"] if q["id"] == "q1")
    assert (q1["status"], q1["metrics"]["evidence_recall"]) == (
        "improved", {"base": 0.0, "candidate": 1.0, "status": "improved"}
    )
    groups = compare(evaluation, ["a1", "a2", "b1", "b2"], resamples=200, allow_missing=True)
    assert [f.question_id for f in groups.groups[1].flaky] == ["q1", "q2", "q4"]


def test_one_paired_question_has_no_interval_two_have_the_plain_percentile_one(
    build: Build,
) -> None:
    # Before, one paired question gave the interval [-1.000, -1.000]: every resample is that
    # question, a point that looks certain.
    ds = build({"base": ({}, {}), "cand": ({}, {"q1": miss("q1")})})

    def paired_on(kept: tuple[str, ...]) -> Comparison:
        runs = (
            ds.runs[0],
            ds.runs[1].model_copy(
                update={"results": [r for r in ds.runs[1].results if r.question_id in kept]}
            ),
        )
        evaluation = evaluate(replace(ds, runs=runs), metrics=["evidence_recall"],
                              allow_missing=True)
        return compare(evaluation, resamples=200, allow_missing=True)

    one = paired_on(("q1",))
    (recall,) = one.pairs[0].metrics
    assert (recall.paired, recall.difference, recall.ci) == (1, -1.0, None)
    assert comparison_json(one)["comparisons"][0]["metrics"]["evidence_recall"]["ci"] is None
    assert (
        "| evidence_recall (higher better) | 1.000 | 0.000 | -1.000 | n/a | 1 (perm. exact) "
        "| 0/0/1 | 1 (4 unpaired) |"
    ) in render_comparison_markdown(one)
    # Two questions (differences -1 and 0): the plain 2.5% and 97.5% percentiles of the
    # resampled means -1, -0.5 and 0.
    (recall,) = paired_on(("q1", "q3")).pairs[0].metrics
    assert recall.ci is not None
    assert (recall.paired, recall.ci.low, recall.ci.high) == (2, -1.0, 0.0)


def test_runs_without_a_seed_are_never_grouped(build: Build) -> None:
    ds = build({"a": ({}, {}), "b": ({}, {}), "c": ({"k": 2}, {})})
    comparison = compare(evaluate(ds), resamples=200)
    assert [g.label for g in comparison.groups] == ["a", "b", "c"]
    assert len(comparison.pairs) == 2


def test_markdown_lists_regressions_before_improvements(build: Build) -> None:
    ds = build(
        {
            "base": ({}, {"q1": miss("q1")}),
            "cand": ({}, {"q2": miss("q2")}),
        }
    )
    text = render_comparison_markdown(compare(evaluate(ds), resamples=200))
    assert "**Regressed (1)**\n\n- `q2: ok -> retrieval_miss`" in text
    assert text.index("**Regressed (1)**") < text.index("**Improved (1)**")
    assert "exact McNemar test" in text


def test_repeats_and_flaky_questions_are_rendered(build: Build) -> None:
    ds = build(
        {
            "a1": ({"seed": 1}, {}),
            "a2": ({"seed": 2}, {"q3": miss("q3")}),
            "b1": ({"seed": 1, "k": 2}, {}),
        }
    )
    comparison = compare(evaluate(ds), resamples=200)
    text = render_comparison_markdown(comparison)
    assert "- a1+a2: 2 repeats (seeds 1, 2); mean ± sd: evidence_recall 0.900 ± 0.141;" in text
    assert "- a1+a2: flaky questions (outcome or stage changes between repeats): q3\n" in text
    table = render_comparison_table(comparison)
    assert "b1 vs a1+a2: 0 regressed, 0 mixed, 1 improved, 0 changed, 4 unchanged" in table
    data = comparison_json(comparison)
    assert data["groups"][0]["flaky"] == [
        {"id": "q3", "outcomes": ["answered", "answered"], "stages": ["ok", "retrieval_miss"]}
    ]
    assert data["groups"][0]["repeats"]["evidence_recall"]["runs_with_value"] == 2


def test_long_lists_are_cut_in_text_but_not_in_json(
    build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragtriage.compare import _comparison_render

    monkeypatch.setattr(_comparison_render, "LIST_LIMIT", 1)
    ds = build({"base": ({}, {"q1": miss("q1"), "q3": miss("q3")}), "cand": ({}, {})})
    comparison = compare(evaluate(ds), resamples=200)
    markdown = render_comparison_markdown(comparison)
    assert (
        "- `q1: retrieval_miss -> ok`: evidence_recall 0.00->1.00 (+1.00); "
        "fact_coverage 0.00->1.00 (+1.00); claim_support 0.00->1.00 (+1.00)\n"
        "- ... and 1 more (all in --format json)\n"
    ) in markdown
    assert "... and 1 more changed questions (all in --format json)" in render_comparison_table(
        comparison
    )
    assert len(comparison_json(comparison)["comparisons"][0]["questions"]) == 5


def _example_evaluation() -> Evaluation:
    paths = example_paths()
    return ragtriage.evaluate(
        ragtriage.load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"evaluation": None}, "evaluation: expected an Evaluation (ragtriage.evaluate or "
         "ragtriage.evaluate_files makes one); found NoneType"),
        ({"resamples": 0}, "resamples: expected an integer from 100 to 100000; found 0"),
        ({"permutations": "5"}, "permutations: expected an integer from 100 to 1000000; "
         "found '5'"),
        ({"seed": None}, "seed: expected an integer from 0 to 4294967295; found None"),
        ({"level": 2}, "level: expected a number from 0.5 to 0.999; found 2"),
        ({"level": float("nan")}, "level: expected a number from 0.5 to 0.999; found nan"),
    ],
    ids=["no evaluation", "resamples 0", "permutations text", "seed None", "level 2", "level nan"],
)
def test_compare_refuses_arguments_it_cannot_use(
    arguments: dict[str, object], message: str
) -> None:
    # Were an AttributeError, a numpy ValueError or TypeError from deep inside the statistics.
    evaluation = arguments.pop("evaluation") if "evaluation" in arguments else (
        _example_evaluation()
    )
    with pytest.raises(RequestError) as raised:
        compare(evaluation, **arguments)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_compare_takes_run_names_from_any_iterable_and_one_name_as_one_run() -> None:
    evaluation = _example_evaluation()
    names = (name for name in ["improved", "baseline"])
    groups = compare(evaluation, names, resamples=100, permutations=100).groups
    assert [g.label for g in groups] == ["improved", "baseline"]
    with pytest.raises(InputError) as raised:
        compare(evaluation, "baseline")
    assert str(raised.value) == (
        "1 problem found in the input:\n- <command line>: RUNS: expected at least two runs to "
        "compare; found 1 run"
    )


def test_runs_without_a_question_answered_by_both_say_nothing_is_compared(build: Build) -> None:
    import dataclasses

    ds = build({"base": ({}, {}), "cand": ({}, {})})

    def answering(kept: dict[str, tuple[str, ...]]) -> Evaluation:
        runs = tuple(
            run.model_copy(
                update={"results": [r for r in run.results if r.question_id in kept[run.name]]}
            )
            for run in ds.runs
        )
        return evaluate(dataclasses.replace(ds, runs=runs), allow_missing=True)

    evaluation = answering({"base": ("q1", "q2"), "cand": ("q3", "q4", "q5")})
    comparison = compare(evaluation, resamples=200, allow_missing=True)
    assert comparison.warnings == (
        "base vs cand: no question has a result on both sides, so nothing is compared",
    )
    assert [m.paired for m in comparison.pairs[0].metrics] == [0] * len(evaluation.measures)
    assert render_comparison_table(comparison).count(
        "warning: base vs cand: no question has a result on both sides"
    ) == 1
    evaluation = answering({"base": ("q1", "q2", "q3"), "cand": ("q3", "q4", "q5")})
    assert compare(evaluation, resamples=200, allow_missing=True).warnings == ()


def test_a_paired_value_over_every_question_is_evaluate_s_value_to_the_last_digit(
    build: Build,
) -> None:
    # Before, the paired value was summed by numpy (in pairs) and the run's value exactly
    # (`metrics.aggregate`): 0.2041726971428984 against 0.20417269714289837 here.
    ds = build({"base": ({}, {}), "cand": ({}, {})})
    fillers = [Document(id=f"f{n}", text="filler") for n in range(18)]
    ids = [f"q{n}" for n in range(40)]
    questions = [
        Question(id=q, text=f"{q}?", answerability="answerable",
                 required_evidence=[EvidenceGroup(any_of=[f"d-{q}"])])
        for q in ids
    ]
    docs = [Document(id=f"d-{q}", text=q) for q in ids]

    def ranked(at: int, q: str) -> QuestionResult:
        names = [f.id for f in fillers]
        names.insert((at * 13) % 19, f"d-{q}")
        return QuestionResult(question_id=q, candidates=[RankedItem(id=n) for n in names],
                              outcome="refused", answer="No.")

    results = [ranked(at, q) for at, q in enumerate(ids)]
    ds = replace(
        ds,
        snapshot=ds.snapshot.model_copy(update={"documents": docs + fillers}),
        evalset=ds.evalset.model_copy(update={"questions": questions}),
        runs=tuple(run.model_copy(update={"results": results}) for run in ds.runs),
    )
    evaluation = evaluate(ds, metrics=["mrr@20"])
    pair = compare(evaluation, resamples=200).pairs[0]
    (mrr,) = [m for m in pair.metrics if m.metric == "mrr@20"]
    own = evaluation.runs[0].summary["mrr@20"].value
    assert (mrr.paired, mrr.base, mrr.base_all, mrr.candidate) == (40, own, own, own)
    assert own == math.fsum(1 / ((at * 13) % 19 + 1) for at in range(40)) / 40


@pytest.mark.parametrize("width", [1, 2, 3, 5, 7, 8, 9])
def test_per_question_values_pool_repeats_as_row_by_row_sums_do(width: int) -> None:
    """Each question's pooled value equals the row's present numerators summed over its
    present denominators, as a row-by-row sum gives it, to the last bit (-0.0, gaps, 0/0)."""
    rng = np.random.default_rng(width)
    num = rng.random((400, width)) * np.geomspace(1e-6, 1e6, width)
    den = rng.integers(0, 4, (400, width)).astype(np.float64)
    num[rng.random(num.shape) < 0.3] = np.nan
    num[:3] = -0.0
    num[0, 1:] = np.nan
    num[3] = np.nan
    den[0] = 1.0
    den[1:3] = 0.0
    values = GroupValues(tuple(f"q{i}" for i in range(400)), num, den)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = [
            float(n[~np.isnan(n)].sum() / d[~np.isnan(n)].sum()) if (~np.isnan(n)).any() else None
            for n, d in zip(num, den, strict=True)
        ]
    got = values.values()
    assert [None if v is None else repr(v) for v in got] == [
        None if v is None else repr(v) for v in want
    ]
    assert got[3] is None


def test_each_group_s_values_are_collected_once_per_metric(
    build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The base group's values serve every pair, each candidate's its metrics and questions:
    3 runs and 2 metrics, 6 collections; before, 16 (the base's 8, each candidate's 4)."""
    from ragtriage.compare import _compare

    ds = build({"a": ({}, {}), "b": ({}, {}), "c": ({}, {})})
    evaluation = evaluate(ds, metrics=["mrr@20", "evidence_recall"])
    calls: list[tuple[str, str]] = []
    collect = _compare.group_values

    def counted(runs: Any, measure: Any, ids: Any) -> Any:
        calls.append(("+".join(r.name for r in runs), measure.name))
        return collect(runs, measure, ids)

    monkeypatch.setattr(_compare, "group_values", counted)
    expected = compare(evaluation, resamples=200)
    assert sorted(calls) == [
        (run, metric) for run in "abc" for metric in ("evidence_recall", "mrr@20")
    ]
    monkeypatch.undo()
    assert comparison_json(compare(evaluation, resamples=200)) == comparison_json(expected)


def test_a_group_s_stage_is_its_repeats_most_frequent_earliest_on_a_tie() -> None:
    order = ("retrieval_miss", "ranking_miss", "ok")
    assert modal_stage(["ok"], order) == "ok"
    assert modal_stage([None, "ranking_miss", None], order) == "ranking_miss"
    assert modal_stage([None, None], order) is None
    assert modal_stage([], order) is None
    assert modal_stage(["ok", "ranking_miss", "ok"], order) == "ok"
    assert modal_stage(["ok", "ranking_miss"], order) == "ranking_miss"
    assert modal_stage(["zeta", "alpha"], order) == "alpha"
