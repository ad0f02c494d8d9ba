"""The edge-case matrix: no gold, no claims, all refusals, empty sets, unknown citations."""

from __future__ import annotations

from core_builders import claim, doc, evaluate_one, question, result

from ragtriage.evaluation import Evaluation
from ragtriage.metrics import Aggregate
from ragtriage.schemas import question_slices

DOCS = [doc("d1", "one"), doc("d2", "two")]


def summary(ev: Evaluation, name: str) -> tuple[float | None, float, float, int]:
    agg: Aggregate = ev.runs[0].summary[name]
    return agg.value, agg.numerator, agg.denominator, agg.not_applicable


def test_all_refusals() -> None:
    questions = [question(f"q{i}", evidence=[["d1"]], facts=["f"]) for i in range(3)]
    results = [result(f"q{i}", ["d1"], context=["d1"], outcome="refused", answer="no") for i in range(3)]
    ev = evaluate_one(DOCS, questions, results)
    assert summary(ev, "claim_support") == (None, 0, 0, 3)
    assert summary(ev, "citation_validity") == (None, 0, 0, 3)
    assert summary(ev, "fact_coverage") == (0.0, 0, 3, 0)
    assert summary(ev, "false_refusal") == (1.0, 3, 3, 0)
    assert summary(ev, "correct_refusal") == (None, 0, 0, 3)
    assert summary(ev, "evidence_recall") == (1.0, 3, 3, 0)


def test_no_gold() -> None:
    questions = [question("u1", "unanswerable"), question("u2", "needs_clarification")]
    results = [
        result("u1", ["d1"], context=["d1"], outcome="refused", answer="no"),
        result("u2", ["d2"], context=["d2"], outcome="clarified", answer="which?"),
    ]
    ev = evaluate_one(DOCS, questions, results)
    for name in ("evidence_recall", "fact_coverage", "false_refusal", "needless_clarification"):
        assert summary(ev, name) == (None, 0, 0, 2), name
    assert summary(ev, "correct_refusal") == (1.0, 1, 1, 1)
    assert summary(ev, "correct_clarification") == (1.0, 1, 1, 1)


def test_no_claims_retrieval_only_run() -> None:
    questions = [question("q1", evidence=[["d1"]], facts=["f"]), question("q2", evidence=[["d2"]])]
    results = [result("q1", ["d1", "d2"], outcome=None), result("q2", ["d1", "d2"], outcome=None)]
    ev = evaluate_one(DOCS, questions, results, k=1)
    assert summary(ev, "evidence_recall") == (0.5, 1, 2, 0)
    for name in ("claim_support", "citation_validity", "fact_coverage", "false_refusal", "correct_refusal"):
        assert summary(ev, name) == (None, 0, 0, 2), name


def test_empty_evaluation_set() -> None:
    ev = evaluate_one(DOCS, [], [])
    assert ev.runs[0].questions == ()
    for name, agg in ev.runs[0].summary.items():
        assert (agg.value, agg.numerator, agg.denominator, agg.not_applicable) == (None, 0, 0, 0), name


def test_unknown_citation_lowers_validity_and_leaves_support() -> None:
    questions = [question("q1", evidence=[["d1"]], facts=["f"])]

    def run(cites: list[str]) -> Evaluation:
        claims = [claim("a", cites, "supported", ["d1"]), claim("b", ["d1"], "supported", ["d1"])]
        return evaluate_one(DOCS, questions, [result("q1", ["d1"], context=["d1"], claims=claims, covered=["f"])])

    clean, ghost = run(["d1"]), run(["d1", "no-such-id"])
    assert summary(clean, "citation_validity") == (1.0, 2, 2, 0)
    assert summary(ghost, "citation_validity") == (0.5, 1, 2, 0)
    assert summary(clean, "claim_support") == summary(ghost, "claim_support") == (1.0, 2, 2, 0)
    assert ghost.runs[0].questions[0].details["invalid_citation_claims"] == ("c1",)


def test_uncited_claim_is_an_invalid_citation_not_an_unsupported_claim() -> None:
    questions = [question("q1", evidence=[["d1"]], facts=["f"])]
    claims = [claim("a", [], "supported", ["d1"])]
    ev = evaluate_one(DOCS, questions, [result("q1", ["d1"], context=["d1"], claims=claims, covered=["f"])])
    assert summary(ev, "citation_validity") == (0.0, 0, 1, 0)
    assert summary(ev, "claim_support") == (1.0, 1, 1, 0)


def test_only_cannot_judge_claims_make_support_not_applicable() -> None:
    questions = [question("q1", evidence=[["d1"]], facts=["f"])]
    claims = [claim("a", ["d1"], "cannot_judge")]
    ev = evaluate_one(DOCS, questions, [result("q1", ["d1"], context=["d1"], claims=claims, covered=["f"])])
    assert summary(ev, "claim_support") == (None, 0, 0, 1)
    assert summary(ev, "citation_validity") == (1.0, 1, 1, 0)


def test_alternative_group_counts_once() -> None:
    questions = [question("q1", evidence=[["d1", "d2"]], facts=["f"])]
    claims = [claim("a", ["d1"], "supported", ["d1"])]
    ev = evaluate_one(DOCS, questions, [result("q1", ["d2", "d1"], context=["d2", "d1"], claims=claims, covered=["f"])])
    assert summary(ev, "evidence_recall") == (1.0, 1, 1, 0)


def test_a_tag_given_twice_puts_its_question_in_the_slice_once() -> None:
    # As the diagnosis breakdown counts it; the slice's aggregates are those of its questions.
    def run(tags: list[str]) -> Evaluation:
        questions = [
            question("q1", evidence=[["d1"]], facts=["f"], tags=tags),
            question("q2", evidence=[["d2"]], facts=["f"], tags=["a"]),
            question("q3", evidence=[["d2"]], facts=["f"]),
        ]
        claims = [claim("a", ["d1"], "supported", ["d1"])]
        results = [
            result(q, ["d1"], context=["d1"], claims=claims, covered=["f"])
            for q in ("q1", "q2", "q3")
        ]
        return evaluate_one(DOCS, questions, results)

    twice, once = run(["a", "a"]), run(["a"])
    for ev in (twice, once):
        recall = ev.runs[0].slices["tag:a"]["evidence_recall"]
        assert (recall.value, recall.numerator, recall.denominator) == (0.5, 1, 2)
        assert ev.runs[0].diagnosis.breakdown.by_tag[0].questions == 2
    assert twice.runs[0].slices == once.runs[0].slices
    assert twice.runs[0].questions[0].tags == ("a", "a")  # the record keeps the tags given


def test_a_question_is_in_its_split_and_in_each_of_its_tags_once() -> None:
    # The one definition the slices, the diagnosis breakdown and the gate's slices read.
    assert question_slices(["b", "a", "b"], "holdout") == ("split:holdout", "tag:b", "tag:a")
    assert question_slices([], "dev") == ("split:dev",)
