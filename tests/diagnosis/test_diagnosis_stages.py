"""Every built-in stage on a hand-made dataset: primary, secondary, proving IDs and reasons."""

from __future__ import annotations

import pytest
from diagnosis_builders import claim, diagnose_dataset, doc, make_dataset, question, result
from stage_dataset import stage_dataset

from ragtriage.diagnosis import STAGES, Finding, _pipeline as pipeline, register_stage, stage_order
from ragtriage.metrics import QuestionView

EXPECTED = {
    "q-ok": ("ok", (), ()),
    "q-miss": (
        "retrieval_miss",
        ("incomplete_answer",),
        (
            ("retrieval_miss", ("b",), "b is not among the 2 candidates"),
            ("incomplete_answer", ("f1",), "1 of 1 reference facts not covered: f1"),
        ),
    ),
    "q-rank": (
        "ranking_loss",
        (),
        (
            (
                "ranking_loss",
                ("c",),
                "c at candidate rank 3, dropped by the reranker (not among its 2 items)",
            ),
        ),
    ),
    "q-trunc": (
        "truncation_loss",
        (),
        (
            (
                "truncation_loss",
                ("d",),
                "d at rank 1 of the candidates, outside the context (1 item)",
            ),
        ),
    ),
    "q-alt": ("ok", (), ()),
    "q-stale": (
        "stale_evidence",
        ("incomplete_answer",),
        (
            (
                "stale_evidence",
                ("old",),
                "old (superseded by new) supports a claim and is cited; "
                "the question applies to v2; the answer used old (v1)",
            ),
            ("incomplete_answer", ("f1",), "1 of 1 reference facts not covered: f1"),
        ),
    ),
    "q-unsup": (
        "unsupported_claim",
        (),
        (("unsupported_claim", ("c2",), "1 of 2 claims not supported by the context: c2"),),
    ),
    "q-cite": (
        "invalid_citation",
        (),
        (
            (
                "invalid_citation",
                ("c2", "x", "c3"),
                "2 of 3 claims without a valid citation: c2 cites x, not in the context; "
                "c3 cites nothing",
            ),
        ),
    ),
    "q-missed-refusal": (
        "missed_refusal",
        (),
        (
            (
                "missed_refusal",
                ("c1",),
                "the material does not answer it, yet the outcome is answered with 1 claim",
            ),
        ),
    ),
    "q-false-refusal": (
        "false_refusal",
        (),
        (
            (
                "false_refusal",
                ("a",),
                "refused although the context held the required evidence",
            ),
        ),
    ),
    "q-needless": (
        "needless_clarification",
        (),
        (
            (
                "needless_clarification",
                ("a",),
                "clarified although the context held the required evidence",
            ),
        ),
    ),
    "q-needless-esc": (
        "needless_escalation",
        (),
        (
            (
                "needless_escalation",
                ("a",),
                "escalated although the context held the required evidence",
            ),
        ),
    ),
    "q-missed-clar": (
        "missed_clarification",
        (),
        (
            (
                "missed_clarification",
                ("c1",),
                "the question needs clarification, yet the outcome is answered",
            ),
        ),
    ),
    "q-uncertain": ("judge_uncertain", (), (("judge_uncertain", ("c2",), "cannot judge c2"),)),
    "q-leak": (
        "permission_leak",
        (),
        (
            (
                "permission_leak",
                ("secret",),
                "secret (readable by finance) among the candidates, in the context; "
                "the asker has support",
            ),
        ),
    ),
    "q-refused-ok": ("ok", (), ()),
    "q-escalated": ("ok", (), ()),
}


def test_every_stage_is_diagnosed_with_its_proof() -> None:
    [run] = diagnose_dataset(stage_dataset())
    found = {
        q.question_id: (q.primary, q.secondary, tuple((f.stage, f.ids, f.why) for f in q.findings))
        for q in run.questions
    }
    assert found == EXPECTED
    assert run.k == 2
    assert run.evidence_level == "document"


def test_breakdown_counts_and_worst_slice_first() -> None:
    [run] = diagnose_dataset(stage_dataset())
    overall = run.breakdown.overall
    assert (overall.key, overall.questions, overall.failing) == ("all", 17, 13)
    assert overall.failure_rate == 13 / 17
    assert overall.count("incomplete_answer").primary == 0
    assert overall.count("incomplete_answer").present == 2
    assert overall.count("ok").primary == 4
    assert [c.stage for c in overall.stages] == list(stage_order())
    assert set(STAGES) <= set(stage_order())
    assert [(s.key, s.questions, s.failing) for s in run.breakdown.worst_first()] == [
        ("tag:multi", 2, 2),
        ("split:regression", 1, 1),
        ("tag:version-conflict", 1, 1),
        ("split:dev", 15, 12),
        ("tag:exact", 2, 1),
        ("tag:no-answer", 3, 1),
        ("split:holdout", 1, 0),
    ]


def test_stage_order_is_pipeline_order() -> None:
    assert STAGES == (
        "permission_leak", "retrieval_miss", "ranking_loss", "truncation_loss", "stale_evidence",
        "unsupported_claim", "invalid_citation", "incomplete_answer", "missed_refusal",
        "false_refusal", "needless_clarification", "needless_escalation", "missed_clarification",
        "judge_uncertain", "ok",
    )


def test_without_reranking_a_candidate_below_k_is_a_truncation_loss() -> None:
    data = make_dataset(
        [doc("a"), doc("b"), doc("c")],
        [question("q", evidence=[["c"]])],
        {"r": [result("q", ["a", "b", "c"], claims=[claim(["a"], support=["a"])])]},
        k=2,
    )
    [run] = diagnose_dataset(data)
    assert run.questions[0].findings == (
        Finding(
            "truncation_loss",
            ("c",),
            "c at rank 3 of the candidates, outside the top 2 kept as context",
        ),
    )


def test_a_version_question_answered_from_an_old_context_is_stale() -> None:
    # The context also holds a current page (`c`): the reason must not say "only old".
    data = make_dataset(
        [doc("old", status="superseded"), doc("new", supersedes=["old"]), doc("c")],
        [question("q", evidence=[["new"]], tags=["version-conflict"])],
        {"r": [result("q", ["old", "c"], claims=[claim([], verdict="unsupported")])]},
        k=2,
    )
    [run] = diagnose_dataset(data)
    assert [(f.stage, f.ids, f.why) for f in run.questions[0].findings] == [
        ("retrieval_miss", ("new",), "new is not among the 2 candidates"),
        (
            "stale_evidence",
            ("old",),
            "answered a version question citing nothing, from a context with old "
            "(superseded by new) and no required evidence",
        ),
        ("unsupported_claim", ("c1",), "1 of 1 claims not supported by the context: c1"),
        ("invalid_citation", ("c1",), "1 of 1 claims without a valid citation: c1 cites nothing"),
    ]


@pytest.mark.parametrize(("level", "findings"), [
    # auto: a chunk group makes the question chunk-level, where a document is only itself.
    ("auto", [("retrieval_miss", ("a",), "a is not among the 2 candidates")]),
    ("document", []),  # a chunk counts as its document
    ("span", []),  # a document ID spans the whole document: any chunk of it counts
])
def test_a_document_group_beside_a_chunk_group_at_each_level(
    level: str, findings: list[tuple[str, tuple[str, ...], str]]
) -> None:
    chunks = [{"id": "a#0", "document_id": "a", "start": 0, "end": 4}]
    data = make_dataset(
        [doc("a"), doc("b")],
        [question("q", evidence=[["a#0"], ["a"]])],
        {"r": [result("q", ["a#0", "b"], claims=[claim(["a#0"], support=["a#0"])])]},
        k=2, chunks=chunks,
    )
    [run] = diagnose_dataset(data, evidence_level=level)
    assert [(f.stage, f.ids, f.why) for f in run.questions[0].findings] == findings


def test_a_miss_among_no_or_one_candidate_and_a_drop_from_one_reranked_item_read_right() -> None:
    # They read 'not among the 0 candidates', 'the 1 candidates' and 'its 1 items'.
    data = make_dataset(
        [doc("a"), doc("b")],
        [question(q, evidence=[["a"]]) for q in ("q0", "q1", "qr")],
        {"r": [result(q, ids, reranked=ranked, claims=[claim([], verdict="unsupported")])
               for q, ids, ranked in (("q0", [], None), ("q1", ["b"], None),
                                      ("qr", ["b", "a"], ["b"]))]},
        k=1,
    )
    [run] = diagnose_dataset(data)
    retrieval = ("retrieval_miss", "ranking_loss")
    assert [f.why for q in run.questions for f in q.findings if f.stage in retrieval] == [
        "a is not among the candidates: there are none",
        "a is not among the 1 candidate",
        "a at candidate rank 2, dropped by the reranker (not among its 1 item)",
    ]


def test_unlabelled_claims_are_judge_uncertain() -> None:
    data = make_dataset(
        [doc("a")],
        [question("q", evidence=[["a"]], facts=["f"])],
        {
            "r": [
                result(
                    "q", ["a"], claims=[claim(["a"], verdict=None)],
                    fact_verdicts={"f": "cannot_judge"},
                )
            ]
        },
        k=1,
    )
    [run] = diagnose_dataset(data, allow_unreviewed=True)
    assert run.questions[0].findings == (
        Finding("judge_uncertain", ("f", "c1"), "cannot judge f; no label for c1"),
    )


def test_registered_stage_runs_in_pipeline_order() -> None:
    saved = list(pipeline._pipeline)

    def check(view: QuestionView) -> Finding | None:
        if "secret" not in view.context:
            return None
        return Finding("probe_stage", ("secret",), "planted text")

    before = stage_order()
    try:
        register_stage("probe_stage", check, after="permission_leak")
        assert stage_order()[:3] == ("permission_leak", "probe_stage", "retrieval_miss")
        [run] = diagnose_dataset(stage_dataset())
        leak = next(q for q in run.questions if q.question_id == "q-leak")
        assert (leak.primary, leak.secondary) == ("permission_leak", ("probe_stage",))
        assert run.stages == stage_order()
        assert run.breakdown.overall.count("probe_stage").present == 1
    finally:
        pipeline._pipeline[:] = saved
    assert stage_order() == before


@pytest.mark.parametrize(
    ("name", "after", "message"),
    [
        ("retrieval_miss", "ok", "stage 'retrieval_miss' is already registered"),
        ("ok", "retrieval_miss", "stage 'ok' is already registered"),
        ("new_stage", "ok", "cannot register 'new_stage' after 'ok': expected one of {known}"),
        ("new_stage", "nope", "cannot register 'new_stage' after 'nope': expected one of {known}"),
    ],
)
def test_register_stage_refuses_bad_names(name: str, after: str, message: str) -> None:
    expected = message.format(known=", ".join(stage_order()[:-1]))
    with pytest.raises(ValueError) as caught:
        register_stage(name, lambda view: None, after=after)
    assert str(caught.value) == expected
