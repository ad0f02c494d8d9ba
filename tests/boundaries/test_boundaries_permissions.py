"""Permission leaks per stage, blocking leaks, escalation rates, next actions per stage."""

from __future__ import annotations

from boundaries_builders import claim, doc, make_dataset, result

from ragtriage.columnar import evaluate
from ragtriage.detectors import (
    check_permissions,
)
from ragtriage.diagnosis import NEXT_ACTIONS, diagnose_run, next_action, stage_order
from ragtriage.render import boundaries_json

DOCS = [doc("pub"), doc("fin", access_groups=["finance"]), doc("hr", access_groups=["hr"])]


def _question(qid: str, answerability: str = "answerable", **extra: object) -> dict[str, object]:
    evidence = [{"any_of": ["pub"]}] if answerability == "answerable" else []
    return {
        "id": qid, "text": f"{qid}?", "answerability": answerability,
        "required_evidence": evidence, **extra,
    }


def _dataset() -> object:
    questions = [
        _question("cand-only", user_groups=["support"]),
        _question("cited", user_groups=["support"]),
        _question("no-user"),
        _question("clean", user_groups=["support", "finance"]),
    ]
    results = [
        result("cand-only", ["pub"], candidates=["pub", "hr"], claims=[claim(["pub"], ["pub"])]),
        result("cited", ["pub", "fin"], claims=[claim(["fin"], ["fin"])]),
        result("no-user", ["pub", "fin"], claims=[claim(["pub"], ["pub"])]),
        result("clean", ["pub", "fin"], claims=[claim(["fin"], ["fin"])]),
    ]
    return make_dataset(DOCS, questions, {"r": results})


def test_leaks_per_question_and_stage() -> None:
    run = evaluate(_dataset(), metrics=[]).runs[0]  # type: ignore[arg-type]
    checks = {v.question.id: check_permissions(v) for v in run.views}
    assert checks["cand-only"].leaks == (
        ("candidates", ("hr",)), ("context", ()), ("cited", ()), ("support", ()),
    )
    assert not checks["cand-only"].blocking
    assert checks["cited"].leaks == (
        ("candidates", ("fin",)), ("context", ("fin",)), ("cited", ("fin",)), ("support", ("fin",)),
    )
    assert checks["cited"].blocking
    assert not checks["no-user"].checked and checks["no-user"].leaked == ()
    assert checks["clean"].leaked == ()
    assert run.boundaries.permissions.blocking == (checks["cited"],)


def test_aggregate_rates_with_denominators_and_documents() -> None:
    evaluation = evaluate(
        _dataset(),  # type: ignore[arg-type]
        metrics=["permission_leak_candidates", "permission_leak_context",
                 "permission_leak_cited", "permission_leak_support"],
    )
    run = evaluation.runs[0]
    found = {
        name: (agg.value, agg.numerator, agg.denominator, agg.not_applicable)
        for name, agg in run.summary.items()
    }
    assert found == {
        "permission_leak_candidates": (2 / 3, 2, 3, 1),
        "permission_leak_context": (1 / 3, 1, 3, 1),
        "permission_leak_cited": (1 / 3, 1, 3, 1),
        "permission_leak_support": (1 / 3, 1, 3, 1),
    }
    summary = run.boundaries.permissions
    assert [(s.stage, s.questions_with_leak, s.questions_checked, s.documents)
            for s in summary.stages] == [
        ("candidates", ("cand-only", "cited"), 3, ("fin", "hr")),
        ("context", ("cited",), 3, ("fin",)),
        ("cited", ("cited",), 3, ("fin",)),
        ("support", ("cited",), 3, ("fin",)),
    ]
    assert summary.unchecked == 1
    details = {r.question_id: dict(r.details) for r in run.questions}
    assert details["cand-only"]["permission_leak_candidates"] == ("hr",)
    assert "permission_leak_context" not in details["cand-only"]


def test_permission_leak_finding_names_every_stage() -> None:
    run = evaluate(_dataset(), metrics=[]).runs[0]  # type: ignore[arg-type]
    found = {q.question_id: q for q in diagnose_run(run).questions}
    [finding] = [f for f in found["cited"].findings if f.stage == "permission_leak"]
    assert finding.ids == ("fin",)
    assert finding.why == (
        "fin (readable by finance) among the candidates, in the context, cited, supporting a "
        "claim; the asker has support"
    )
    # A candidate-only leak was filtered before the model saw it: reported, not diagnosed.
    assert "permission_leak" not in found["cand-only"].stages


def test_blocking_leaks_name_the_documents_that_reached_the_context_or_answer() -> None:
    # hr was only a candidate (filtered in time), fin reached the context: only fin blocks,
    # in the run's `permission_blocking` as in the diagnosis's proving IDs.
    data = make_dataset(
        DOCS, [_question("q", user_groups=["support"])],
        {"r": [result("q", ["pub", "fin"], candidates=["hr", "pub", "fin"],
                      claims=[claim(["pub"], ["pub"])])]},
    )
    run = evaluate(data, metrics=[]).runs[0]
    assert boundaries_json(run.boundaries)["permission_blocking"] == [
        {"question": "q", "documents": ["fin"]}
    ]
    [finding] = diagnose_run(run).questions[0].findings
    assert (finding.stage, finding.ids) == ("permission_leak", ("fin",))


def test_escalation_rates_have_their_own_denominators() -> None:
    questions = [
        _question("a1"), _question("a2"),
        _question("u1", "unanswerable"), _question("c1", "needs_clarification"),
        _question("u2", "unanswerable"),
    ]
    results = [
        result("a1", ["pub"], outcome="escalated"),
        result("a2", ["pub"], claims=[claim(["pub"], ["pub"])]),
        result("u1", ["pub"], outcome="escalated"),
        result("c1", ["pub"], outcome="escalated"),
        result("u2", ["pub"], outcome="refused"),
    ]
    data = make_dataset(DOCS, questions, {"r": results})
    run = evaluate(data, metrics=["correct_escalation", "needless_escalation"]).runs[0]
    found = {
        name: (agg.value, agg.numerator, agg.denominator, agg.not_applicable)
        for name, agg in run.summary.items()
    }
    assert found == {
        "correct_escalation": (2 / 3, 2, 3, 2),
        "needless_escalation": (0.5, 1, 2, 3),
    }


def test_every_diagnosis_stage_has_a_next_action() -> None:
    assert set(stage_order()) - {"ok"} == set(NEXT_ACTIONS)
    action = next_action("ranking_loss")
    assert action is not None
    assert (action.try_first, action.hold_fixed) == (
        "inspect the reranker and where the ranking is cut off",
        "the candidate set and the final k",
    )
    assert next_action("ok") is None
