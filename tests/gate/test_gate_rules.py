"""Gate rules on the bundled example (holdout left out), with policies written per test."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ragtriage import InputError, RequestError, evaluate, load_dataset
from ragtriage.evaluation import Evaluation
from ragtriage.example import example_paths
from ragtriage.gate import (
    GateResult,
    RuleResult,
    gate,
    gate_json,
    load_policy,
    render_gate_markdown,
    render_gate_table,
    render_junit,
)
from ragtriage.holdout import without_holdout
from ragtriage.loading import Dataset
from ragtriage.metrics import default_measures
from ragtriage.render import dumps


def _dataset() -> Dataset:
    paths = example_paths()
    return without_holdout(load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs))


def _evaluate(dataset: Dataset) -> Evaluation:
    return evaluate(dataset, metrics=[m.name for m in default_measures()])


@pytest.fixture(scope="module")
def example_evaluation() -> Evaluation:
    return _evaluate(_dataset())


def _gate(
    tmp_path: Path, evaluation: Evaluation, text: str, run: str, baseline: str | None = None
) -> GateResult:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return gate(evaluation, load_policy(path), run, baseline, resamples=300)


def _only(result: GateResult) -> RuleResult:
    assert len(result.rules) == 1
    return result.rules[0]


def test_not_applicable_share_fails_closed(tmp_path: Path, example_evaluation: Evaluation) -> None:
    policy = '[[threshold]]\nmetric = "correct_refusal"\nmin = 0.0\nmax_not_applicable = 0.5\n'
    rule = _only(_gate(tmp_path, example_evaluation, policy, "improved"))
    assert (rule.name, rule.verdict, rule.observed) == ("correct_refusal >= 0", "fail", 0.5)
    assert rule.detail == "13/15 questions not applicable (87% > 50%; fail closed)"


def test_a_share_past_its_limit_is_shown_with_the_digits_that_tell_them_apart(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    # The limits of 0.866 and 0.066 rounded to 87% and 7%, as 13/15 and 1/15 do: the detail
    # said `87% > 87%`, a comparison that does not hold; 5/15 rounds down to 33%
    policy = (
        '[[threshold]]\nmetric = "correct_refusal"\nmin = 0.0\nmax_not_applicable = 0.866\n'
        '[[threshold]]\nmetric = "claim_support"\nmin = 0.0\nmax_judge_uncertain = 0.066\n'
        '[[threshold]]\nmetric = "stale_cited"\nmax = 1.0\nmax_not_applicable = 0.333\n'
    )
    rules = _gate(tmp_path, example_evaluation, policy, "baseline").rules
    assert [r.detail for r in rules] == [
        "13/15 questions not applicable (87% > 86.6%; fail closed)",
        "1/15 questions with uncertain labels (7% > 6.6%; fail closed)",
        "5/15 questions not applicable (33.33% > 33.3%; fail closed)",  # 33% would not show it
    ]


def test_judge_uncertain_share_applies_to_label_layers(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    policy = (
        "[defaults]\nmax_judge_uncertain = 0.05\n"
        '[[threshold]]\nmetric = "claim_support"\nmin = 0.0\n'
        '[[threshold]]\nmetric = "evidence_recall"\nmin = 0.0\n'
    )
    result = _gate(tmp_path, example_evaluation, policy, "baseline")
    support, recall = result.rules
    assert support.verdict == "fail"
    assert support.detail == "1/15 questions with uncertain labels (7% > 5%; fail closed)"
    assert support.questions == ("ordering",)
    assert recall.verdict == "pass"  # a retrieval metric reads no labels


def _claim_and_fact(tmp_path: Path, claim: str, fact: str) -> Evaluation:
    """Two answered questions, each with one claim labelled `supported` and one reference
    fact labelled `covered`, but qa's claim is labelled `claim` and its fact `fact`."""
    person = {"kind": "human", "name": "mei"}

    def label(verdict: str) -> dict[str, object]:
        reason = {"reason": "unclear"} if verdict == "cannot_judge" else {}
        support = {"supported_by": ["d1"]} if verdict == "supported" else {}
        return {"verdict": verdict, **support, "labeller": person, **reason}

    def result(question: str, claim: str, facts: list[dict[str, object]]) -> dict[str, object]:
        return {
            "question_id": question, "candidates": [{"id": "d1"}], "context": [{"id": "d1"}],
            "answer": "7 days [d1]", "outcome": "answered",
            "claims": [{"id": "c1", "text": "7 days", "citations": ["d1"],
                        "labels": [] if claim == "unlabelled" else [label(claim)]}],
            "fact_labels": facts,
        }

    evidence = [{"any_of": ["d1"]}]
    files = {
        "evalset.json": {
            "schema_version": 1, "kind": "evalset", "evalset_id": "e", "snapshot_id": "s",
            "questions": [
                {"id": "qa", "text": "How long?", "answerability": "answerable",
                 "required_evidence": evidence, "reference_facts": [{"id": "f1"}]},
                {"id": "qb", "text": "How long again?", "answerability": "answerable",
                 "required_evidence": evidence, "reference_facts": [{"id": "f2"}]},
            ],
        },
        "snapshot.json": {
            "schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
            "documents": [{"id": "d1", "text": "Logs are kept 7 days."}],
        },
        "run.json": {
            "schema_version": 1, "kind": "run", "name": "r",
            "provenance": {"snapshot_id": "s", "evalset_id": "e", "k": 1},
            "results": [
                result("qa", claim, [] if fact == "unlabelled" else [
                    {"fact_id": "f1", **label(fact)}
                ]),
                result("qb", "supported", [{"fact_id": "f2", **label("covered")}]),
            ],
        },
    }
    for name, doc in files.items():
        (tmp_path / name).write_text(json.dumps(doc), encoding="utf-8")
    dataset = load_dataset(
        tmp_path / "evalset.json", snapshot=tmp_path / "snapshot.json",
        runs=[tmp_path / "run.json"],
    )
    return evaluate(dataset, metrics=["claim_support", "fact_coverage"], allow_unreviewed=True)


@pytest.mark.parametrize(
    ("claim", "fact", "uncertain_metric"),
    [
        ("supported", "cannot_judge", "fact_coverage"),
        ("cannot_judge", "covered", "claim_support"),
        ("unlabelled", "covered", "claim_support"),  # counted as uncertain, as before
        ("supported", "unlabelled", "fact_coverage"),
    ],
)
def test_the_uncertain_limit_counts_only_the_labels_a_metric_reads(
    tmp_path: Path, claim: str, fact: str, uncertain_metric: str
) -> None:
    # qa has one uncertain label: a fact (fact_coverage reads it) or a claim (claim_support
    # does; a claim without a label is uncertain too). Both rules failed with "1/2 questions
    # with uncertain labels", whichever it was.
    evaluation = _claim_and_fact(tmp_path, claim, fact)
    policy = (
        "[defaults]\nmax_not_applicable = 1.0\nmax_judge_uncertain = 0.4\n"
        '[[threshold]]\nmetric = "claim_support"\nmin = 0.0\n'
        '[[threshold]]\nmetric = "fact_coverage"\nmin = 0.0\n'
    )
    result = _gate(tmp_path, evaluation, policy, "r")
    averaging = {"claim_support": "micro", "fact_coverage": "macro"}
    # The uncertain label is left out: its measure counts qb alone (1/1), the other both.
    assert [(r.name, r.verdict, r.observed_text, r.detail, r.questions) for r in result.rules] == [
        (f"{metric} >= 0", "fail", f"1.000 (1/1, {kind})",
         "1/2 questions with uncertain labels (50% > 40%; fail closed)", ("qa",))
        if metric == uncertain_metric
        else (f"{metric} >= 0", "pass", f"1.000 (2/2, {kind})",
              "within bounds over 2 questions", ())
        for metric, kind in averaging.items()
    ]


def test_empty_slice_fails_closed(tmp_path: Path, example_evaluation: Evaluation) -> None:
    policy = '[[threshold]]\nmetric = "evidence_recall"\nslice = "tag:nothing"\nmin = 0.5\n'
    rule = _only(_gate(tmp_path, example_evaluation, policy, "improved"))
    assert (rule.verdict, rule.detail) == ("fail", "tag:nothing holds no question (fail closed)")


def test_every_rule_over_an_empty_slice_fails_closed(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    # A rule whose questions are none checks nothing (a misspelt tag; the holdout, left out
    # here):
    # it fails, as a threshold over such a slice does.
    policy = (
        '[[block]]\nstage = "permission_leak"\nslice = "tag:nothing"\n'
        '[[sensitive]]\nwhere = "any"\nslice = "split:holdout"\n'
        '[no_regression]\nsplits = []\ntags = ["nothing"]\n'
    )
    result = _gate(tmp_path, example_evaluation, policy, "improved", "baseline")
    assert [(r.name, r.verdict, r.observed_text, r.detail) for r in result.rules] == [
        ("no permission_leak in tag:nothing", "fail", "no questions",
         "tag:nothing holds no question (fail closed)"),
        ("no regression on protected questions", "fail", "no protected questions",
         "no paired question in tag nothing (fail closed)"),
        ("no sensitive values anywhere in split:holdout", "fail", "no questions",
         "split:holdout holds no question (fail closed)"),
    ]
    assert not result.passed


def test_a_rule_over_no_question_observes_nothing_not_zero(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    # A count over no question is not applicable: block, sensitive and no_regression rules
    # observed 0.0 ("0/0 questions") where a threshold over the same slice observes null.
    policy = (
        '[[block]]\nstage = "permission_leak"\nslice = "tag:nothing"\n'
        '[[threshold]]\nmetric = "evidence_recall"\nslice = "tag:nothing"\nmin = 0.5\n'
        '[[sensitive]]\nwhere = "any"\nslice = "tag:nothing"\n'
        '[no_regression]\nsplits = []\ntags = ["nothing"]\n'
    )
    result = _gate(tmp_path, example_evaluation, policy, "improved", "baseline")
    rules = gate_json(result)["rules"]
    assert [(r["kind"], r["verdict"], r["observed"], r["observed_text"]) for r in rules] == [
        ("block", "fail", None, "no questions"),
        ("no_regression", "fail", None, "no protected questions"),
        ("threshold", "fail", None, "no questions"),
        ("sensitive", "fail", None, "no questions"),
    ]
    table = render_gate_table(result, width=400)
    markdown = render_gate_markdown(result)
    for text in (table, markdown):
        assert "0/0" not in text
        assert text.count("no questions") == 3
    junit = ET.fromstring(render_junit(result))
    failures = [f.text or "" for f in junit.iter("failure")]
    assert [f.splitlines()[0] for f in failures] == [
        "observed: no questions",
        "observed: no protected questions",
        "observed: no questions",
        "observed: no questions",
    ]


def test_block_rule_in_a_slice(tmp_path: Path, example_evaluation: Evaluation) -> None:
    policy = (
        '[[block]]\nstage = "stale_evidence"\nslice = "split:regression"\n'
        'name = "fresh regression answers"\n'
    )
    rule = _only(_gate(tmp_path, example_evaluation, policy, "baseline"))
    assert (rule.name, rule.verdict, rule.questions) == (
        "fresh regression answers",
        "fail",
        ("stale-retention",),
    )
    assert (
        rule.detail
        == "1 of 3 questions in split:regression diagnosed stale_evidence: stale-retention"
    )


def test_a_count_of_one_question_is_written_singular(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    # the table read "at most 1 question(s)" and "over 1 question(s)"
    policy = (
        '[[block]]\nstage = "stale_evidence"\nslice = "tag:version-conflict"\nmax_questions = 1\n'
        '[[threshold]]\nmetric = "evidence_recall"\nmin = 0.0\nslice = "tag:version-conflict"\n'
    )
    block, threshold = _gate(tmp_path, example_evaluation, policy, "baseline").rules
    assert (block.limit, block.detail) == (
        "at most 1 question",
        "1 of 1 question in tag:version-conflict diagnosed stale_evidence: stale-retention",
    )
    assert threshold.detail == "within bounds over 1 question"


def test_drop_rules_absolute_and_significant(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    policy = (
        '[[drop]]\nmetric = "fact_coverage"\nmax_drop = 0.05\n'
        '[[drop]]\nmetric = "fact_coverage"\nsignificant = true\n'
    )
    absolute, significant = _gate(
        tmp_path, example_evaluation, policy, "baseline", "improved"
    ).rules
    assert (absolute.name, absolute.verdict) == ("fact_coverage drop <= 0.05", "fail")
    assert absolute.observed == pytest.approx(0.4027777, abs=1e-6)
    assert absolute.detail == "drop 0.403 over 12 paired questions; p = 0.0781 (sign_flip_exact)"
    # the same drop is not significant at 0.05 on 12 questions, so the second rule passes
    assert (significant.name, significant.verdict) == (
        "fact_coverage no significant drop (p < 0.05)",
        "pass",
    )


def test_a_drop_passes_up_to_max_drop_plus_1e_12_and_fails_past_it(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    # The drop is a difference of two floats, so it carries their rounding: 0.8 - 0.7 is
    # 0.10000000000000009, a drop `max_drop = 0.1` must allow. The margin is absolute (every
    # metric lies in 0..1), far above that rounding and far below any drop worth a verdict.
    drop = 0.9166666666666666 - 0.513888888888889  # fact_coverage: improved -> baseline
    assert (drop, 0.8 - 0.7) == (0.4027777777777777, 0.10000000000000009)
    bounds = [drop, drop - 0.9e-12, drop - 1.1e-12]
    policy = "".join(f'[[drop]]\nmetric = "fact_coverage"\nmax_drop = {b!r}\n' for b in bounds)
    rules = _gate(tmp_path, example_evaluation, policy, "baseline", "improved").rules
    assert [(r.name, r.observed, r.verdict) for r in rules] == [
        ("fact_coverage drop <= 0.4027777777777777", drop, "pass"),
        ("fact_coverage drop <= 0.4027777777768777", drop, "pass"),
        ("fact_coverage drop <= 0.40277777777667767", drop, "fail"),
    ]


def test_baseline_rules_are_skipped_without_a_baseline(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    policy = '[no_regression]\n[[drop]]\nmetric = "evidence_recall"\nmax_drop = 0.0\n'
    result = _gate(tmp_path, example_evaluation, policy, "improved")
    assert [(r.verdict, r.detail) for r in result.rules] == [
        ("skipped", "needs --baseline"),
        ("skipped", "needs --baseline"),
    ]
    assert result.passed
    with pytest.raises(InputError) as caught:
        _gate(tmp_path, example_evaluation, "require_baseline = true\n" + policy, "improved")
    assert caught.value.problems[0].field == "--baseline"


def test_no_regression_catches_the_designed_regression(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    rule = _only(_gate(tmp_path, example_evaluation, "[no_regression]\n", "improved", "baseline"))
    assert (rule.verdict, rule.questions, rule.observed_text) == (
        "fail",
        ("purge",),
        "1/3 regressed",
    )


def test_latency_and_cost_budgets_fail_closed_on_missing_records(tmp_path: Path) -> None:
    dataset = _dataset()
    improved = dataset.runs[1]
    first = improved.results[0].model_copy(update={"latency_ms": None, "cost_usd": None})
    runs = (
        dataset.runs[0],
        improved.model_copy(update={"results": [first, *improved.results[1:]]}),
    )
    evaluation = _evaluate(
        Dataset(
            dataset.snapshot, dataset.evalset, runs, dataset.sources, run_files=dataset.run_files
        )
    )
    policy = "[latency]\np50_ms = 5000\n[cost]\nmax_mean_usd = 1.0\nmax_missing = 0.1\n"
    latency, cost = _gate(tmp_path, evaluation, policy, "improved").rules
    assert (latency.verdict, latency.detail, latency.questions) == (
        "fail",
        "1/15 questions unrecorded (fail closed)",
        ("exact-code",),
    )
    assert cost.verdict == "pass"  # 1/15 missing is within max_missing = 0.1


def test_latency_percentiles_and_cost_values(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    policy = "[latency]\np50_ms = 1000\np95_ms = 2000\n[cost]\nmax_mean_usd = 0.0002\n"
    p50, p95, cost = _gate(tmp_path, example_evaluation, policy, "improved").rules
    assert (p50.name, p50.verdict, p50.observed) == ("latency p50 <= 1000 ms", "fail", 1070.0)
    assert p95.verdict == "pass"
    assert p95.observed == pytest.approx(1322.0)
    assert cost.verdict == "fail"
    assert cost.observed == pytest.approx(0.0002526, rel=1e-9)


def test_a_budget_limit_keeps_every_digit_of_its_share_of_unrecorded_questions(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    # `at most 2%` and `at most 12%` were not the policy's 0.025 and 0.125
    policy = (
        "[latency]\np50_ms = 5000\nmax_missing = 0.025\n"
        "[cost]\nmax_mean_usd = 1.0\nmax_missing = 0.125\n"
    )
    rules = _gate(tmp_path, example_evaluation, policy, "improved").rules
    assert [r.limit for r in rules] == [
        "<= 5000 ms, at most 2.5% of questions unrecorded",
        "<= 1 USD, at most 12.5% of questions unrecorded",
    ]


def test_junit_has_one_testcase_per_rule(tmp_path: Path, example_evaluation: Evaluation) -> None:
    result = gate(example_evaluation, load_policy(example_paths().policy), "baseline")
    root = ET.fromstring(render_junit(result))
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [r.name for r in result.rules]
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == [r.name for r in result.rules if r.verdict == "fail"]
    assert root.get("failures") == str(len(failed))
    assert [c.get("name") for c in cases if c.find("skipped") is not None] == [
        r.name for r in result.rules if r.verdict == "skipped"
    ]
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["policy_sha256"] == result.policy_sha256
    assert render_junit(result) == render_junit(
        gate(example_evaluation, load_policy(example_paths().policy), "baseline")
    )


def test_every_rule_has_its_own_name_even_beside_one_named_like_a_numbered_twin(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    # the second twin was numbered `#2`, the name the third rule has: two test cases of one
    # name in the JUnit file, which CI readers merge or overwrite
    rule = '[[threshold]]\nmetric = "evidence_recall"\nmin = 0.5\n'
    policy = rule * 2 + rule + 'name = "evidence_recall >= 0.5 #2"\n' + rule
    result = _gate(tmp_path, example_evaluation, policy, "improved")
    names = [
        "evidence_recall >= 0.5",
        "evidence_recall >= 0.5 #3",
        "evidence_recall >= 0.5 #2",
        "evidence_recall >= 0.5 #4",
    ]
    assert [r.name for r in result.rules] == names
    cases = ET.fromstring(render_junit(result)).iter("testcase")
    assert [c.get("name") for c in cases] == names


def test_junit_is_valid_against_the_jenkins_junit_schema(example_evaluation: Evaluation) -> None:
    # `skipped` is an attribute of <testsuite> only: on <testsuites> the schema refuses the file.
    result = gate(example_evaluation, load_policy(example_paths().policy), "baseline")
    root = ET.fromstring(render_junit(result))
    suite = root.find("testsuite")
    assert suite is not None
    assert root.attrib == {"name": "ragtriage gate", "tests": "14", "failures": "8", "errors": "0"}
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "14", "failures": "8", "errors": "0", "skipped": "3"
    }
    etree = pytest.importorskip("lxml.etree")
    schema = etree.XMLSchema(etree.parse(str(Path(__file__).parent / "data" / "junit-10.xsd")))
    document = etree.fromstring(render_junit(result).encode("utf-8"))
    assert schema.validate(document), [str(e) for e in schema.error_log]


def _hostile_junit(
    mark: str, policy_name: str, run: str, no_result: str, **fields: str | None
) -> tuple[GateResult, Any, Any]:
    """A failed block rule on tag `a{mark}b` with the names given, and its JUnit file's suite
    and failure (each checked to be there)."""
    rule = RuleResult(
        name=f"no permission_leak in tag:a{mark}b",
        kind="block",
        verdict="fail",
        observed=1.0,
        observed_text="1/2 questions",
        limit="at most 0 questions",
        detail=f"1 of 2 questions in tag:a{mark}b diagnosed permission_leak: q{fields.pop('q')}",
    )
    result = GateResult(
        policy_name=policy_name,
        policy_path=fields.pop("policy_path", None) or "policy.toml",
        policy_sha256="0" * 64,
        run=run,
        baseline=fields.pop("baseline", None),
        questions=2,
        rules=(rule,),
        sources=(),
        no_result=(no_result,),
    )
    suite = ET.fromstring(render_junit(result)).find("testsuite")
    assert suite is not None
    case = suite.find("testcase")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None
    assert failure.text == (
        f"observed: 1/2 questions\nlimit: at most 0 questions\n{failure.get('message')}"
    )
    return result, suite, case


def test_junit_writes_a_control_character_as_its_escape() -> None:
    # a tag or run name may hold one; written raw, it makes the file unreadable XML
    _, suite, case = _hostile_junit("\x01", "p\x0b", "run\x00", "q\ufffe", q="\x1f")
    assert suite.get("name") == "ragtriage gate: p\\x0b on run\\x00"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert (props["run"], props["no_result"]) == ("run\\x00", "q\\ufffe")
    assert case.get("name") == "no permission_leak in tag:a\\x01b"
    detail = "1 of 2 questions in tag:a\\x01b diagnosed permission_leak: q\\x1f"
    assert case.find("failure").get("message") == detail


def test_junit_writes_c1_and_format_characters_as_the_table_and_markdown_do() -> None:
    # XML 1.0 holds NEL (\x85), U+202E and a tab, so they were written raw: CI showed the
    # policy name reversed where the table and the Markdown show `\x85\u202e`
    result, suite, case = _hostile_junit(
        "\u202e", "p\x85\t", "run\u202e", "q\ufeff", q="\u200b",
        policy_path="pol\u2066.toml", baseline="base\x9b",
    )
    assert suite.get("name") == "ragtriage gate: p\\x85\\x09 on run\\u202e"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert [props[k] for k in ("policy", "run", "baseline", "no_result")] == [
        "pol\\u2066.toml", "run\\u202e", "base\\x9b", "q\\ufeff"
    ]
    assert case.get("name") == "no permission_leak in tag:a\\u202eb"
    detail = "1 of 2 questions in tag:a\\u202eb diagnosed permission_leak: q\\u200b"
    assert case.find("failure").get("message") == detail
    for shown in (render_gate_table(result), render_gate_markdown(result)):
        assert "p\\x85" in shown and "tag:a\\u202eb" in shown


def test_a_bound_equal_to_the_value_passes_and_one_ulp_past_it_fails_in_full_digits(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    recall = 11 / 12  # evidence_recall of 'improved'; its false_refusal is 1/12, p50 1070 ms
    up, down = math.nextafter(recall, 1.0), math.nextafter(1 / 12, 0.0)
    policy = (
        f'[[threshold]]\nmetric = "evidence_recall"\nmin = {recall!r}\n'
        f'[[threshold]]\nmetric = "evidence_recall"\nmin = {up!r}\n'
        f'[[threshold]]\nmetric = "false_refusal"\nmax = {down!r}\n'
        f"[latency]\np50_ms = {math.nextafter(1070.0, 0.0)!r}\n"
        '[[threshold]]\nmetric = "evidence_recall"\nmin = 0.95\n'
    )
    rules = _gate(tmp_path, example_evaluation, policy, "improved").rules
    assert [(r.verdict, r.detail) for r in rules] == [
        ("pass", "within bounds over 15 questions"),
        ("fail", "0.9166666666666666 < 0.9166666666666667"),
        ("fail", "0.08333333333333333 > 0.08333333333333331"),
        ("fail", "0.917 < 0.95"),  # rounding shows the comparison: three decimals
        ("fail", "1070.0 ms > 1069.9999999999998 ms"),
    ]
    # Named with every digit that tells two thresholds apart (six digits named the first two
    # `>= 0.916667` and the latency rule `<= 1070 ms`, which the observed 1070 ms meets).
    assert [r.name for r in rules] == [
        "evidence_recall >= 0.9166666666666666",
        "evidence_recall >= 0.9166666666666667",
        "false_refusal <= 0.08333333333333331",
        "evidence_recall >= 0.95",
        "latency p50 <= 1069.9999999999998 ms",
    ]


def test_a_policy_measure_the_evaluation_did_not_score_is_refused(
    tmp_path: Path, example_evaluation: Evaluation
) -> None:
    policy = '[[threshold]]\nmetric = "recip_rank@10"\nmin = 0.5\n'
    with pytest.raises(RequestError) as caught:
        _gate(tmp_path, example_evaluation, policy, "improved")
    assert str(caught.value) == (
        f"evaluation: expected every measure policy {tmp_path / 'policy.toml'} reads; found no "
        "mrr@10 (evaluate with metrics=[...] naming them)"
    )
    # scored, the alias names the same measure: the rule reads its value
    scored = evaluate(_dataset(), metrics=["evidence_recall", "mrr@10"])
    rule = _only(_gate(tmp_path, scored, policy, "improved"))
    assert (rule.name, rule.verdict, rule.observed_text) == (
        "mrr@10 >= 0.5",
        "pass",
        "0.938 (11.2/12, macro)",  # as evaluate's table writes the sum (11.25 before)
    )


def test_a_run_gated_against_its_twin_shows_no_change(tmp_path: Path) -> None:
    dataset = _dataset()
    twin = dataset.runs[1].model_copy(update={"name": "twin"})
    evaluation = _evaluate(
        Dataset(
            dataset.snapshot,
            dataset.evalset,
            (dataset.runs[1], twin),
            dataset.sources,
            run_files=dataset.run_files,
        )
    )
    policy = (
        '[[drop]]\nmetric = "evidence_recall"\nmax_drop = 0.0\n'
        '[[drop]]\nmetric = "false_refusal"\nsignificant = true\n'
    )
    result = _gate(tmp_path, evaluation, policy, "twin", "improved")
    assert [(r.verdict, r.observed, r.observed_text, r.detail) for r in result.rules] == [
        (
            "pass",
            0.0,
            "no change (0.917 -> 0.917, p=1)",
            "no change over 12 paired questions; p = 1 (sign_flip_exact)",
        ),
        (
            "pass",
            0.0,
            "no change (0.083 -> 0.083, p=1)",
            "no change over 12 paired questions; p = 1 (mcnemar_exact)",
        ),
    ]
    assert [math.copysign(1.0, r.observed or 0.0) for r in result.rules] == [1.0, 1.0]
    assert '"observed": 0.0' in dumps(gate_json(result))


def test_an_id_holding_the_separator_or_edge_spaces_is_quoted_in_every_gate_output() -> None:
    # `q3, q7` is one ID: joined as it is, it would read as two; ` q9` would read as `q9`.
    result = GateResult(
        policy_name="p",
        policy_path="policy.toml",
        policy_sha256="0" * 64,
        run="run",
        baseline=None,
        questions=4,
        rules=(),
        sources=(),
        no_result=("q3, q7", " q9", "q1"),
    )
    listed = "'q3, q7', ' q9', q1"
    assert f"(not gated, no result: {listed})" in render_gate_table(result, 200)
    assert f"(not gated, no result: {listed})" in render_gate_markdown(result)
    props = {p.get("name"): p.get("value") for p in ET.fromstring(render_junit(result)).iter(
        "property")}
    assert props["no_result"] == listed
