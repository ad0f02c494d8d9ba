"""`build_breakdown`: each slice's question count and each stage's primary and present counts
(a question counted once per slice, however often a tag or a stage repeats)."""

from __future__ import annotations

from ragtriage.diagnosis import QuestionDiagnosis, SliceBreakdown
from ragtriage.diagnosis._model import build_breakdown

ORDER = ("ok", "retrieval_miss", "ranking_miss", "unsupported_claim")


def _counts(part: SliceBreakdown) -> list[tuple[str, int, int, int]]:
    return [(c.stage, c.primary, c.present, c.questions) for c in part.stages]


def test_counts_per_slice() -> None:
    questions = [
        QuestionDiagnosis("q1", "ok", (), (), ("a", "a"), "dev"),
        QuestionDiagnosis("q2", "retrieval_miss", ("unsupported_claim",), (), ("a",), "dev"),
        QuestionDiagnosis("q3", "retrieval_miss", ("unsupported_claim",), (), ("b", "a"), "test"),
        QuestionDiagnosis("q4", "ranking_miss", ("ranking_miss",), (), (), "test"),
    ]
    found = build_breakdown(questions, ORDER)
    assert (found.overall.key, found.overall.questions, found.overall.failing) == ("all", 4, 3)
    assert _counts(found.overall) == [
        ("ok", 1, 1, 4), ("retrieval_miss", 2, 2, 4), ("ranking_miss", 1, 1, 4),
        ("unsupported_claim", 0, 2, 4),
    ]
    assert [(p.key, p.questions, p.failing) for p in found.by_tag] == [
        ("tag:a", 3, 2), ("tag:b", 1, 1)
    ]
    assert _counts(found.by_tag[0]) == [
        ("ok", 1, 1, 3), ("retrieval_miss", 2, 2, 3), ("ranking_miss", 0, 0, 3),
        ("unsupported_claim", 0, 2, 3),
    ]
    assert [(p.key, p.questions, p.failing) for p in found.by_split] == [
        ("split:dev", 2, 1), ("split:test", 2, 2)
    ]
    assert _counts(found.by_split[1]) == [
        ("ok", 0, 0, 2), ("retrieval_miss", 1, 1, 2), ("ranking_miss", 1, 1, 2),
        ("unsupported_claim", 0, 1, 2),
    ]
    empty = build_breakdown([], ORDER)
    assert (empty.overall.questions, empty.by_tag, empty.by_split) == (0, (), ())
    assert _counts(empty.overall)[0] == ("ok", 0, 0, 0)


def test_verdicts_sent_as_their_fields_are_the_same_verdicts() -> None:
    # How a forked worker sends its verdicts back: plain tuples, findings too.
    from ragtriage.diagnosis import Finding, verdict_fields, verdicts_from_fields

    verdicts = [
        QuestionDiagnosis("q1", "ok", (), (), ("a",), "dev"),
        QuestionDiagnosis(
            "q2", "retrieval_miss", ("unsupported_claim",),
            (Finding("retrieval_miss", ("d1", "d2"), "d1|d2 is not among the 3 candidates"),
             Finding("unsupported_claim", ("c1",), "c1 is not supported")),
            (), "holdout",
        ),
    ]
    fields = verdict_fields(verdicts)
    assert fields[1] == (
        "q2", "retrieval_miss", ("unsupported_claim",),
        (("retrieval_miss", ("d1", "d2"), "d1|d2 is not among the 3 candidates"),
         ("unsupported_claim", ("c1",), "c1 is not supported")),
        (), "holdout",
    )
    assert verdicts_from_fields(fields) == verdicts
