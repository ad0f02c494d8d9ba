"""Property tests: diagnosis ignores question order and ID spelling; more context never hurts."""

from __future__ import annotations

import copy
from typing import Any

from diagnosis_builders import JUDGE, diagnose_dataset, doc, make_dataset, question, result
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from ragtriage.diagnosis import QuestionDiagnosis, RunDiagnosis

DOC_IDS = [f"d{i}" for i in range(8)]
RETRIEVAL = ("retrieval_miss", "ranking_loss", "truncation_loss")


def _docs() -> list[dict[str, Any]]:
    docs = [doc(d) for d in DOC_IDS[:5]]
    docs.append(doc("d5", access_groups=["finance"]))
    docs.append(doc("d6", status="superseded", version="v1"))
    docs.append(doc("d7", version="v2", supersedes=["d6"]))
    return docs


@st.composite
def _claims(draw: st.DrawFn, context: list[str]) -> list[dict[str, Any]]:
    out = []
    for _ in range(draw(st.integers(0, 2))):
        verdict = draw(st.sampled_from(["supported", "unsupported", "cannot_judge", None]))
        if verdict == "supported" and not context:
            verdict = "unsupported"
        labels = []
        if verdict is not None:
            support = [draw(st.sampled_from(context))] if verdict == "supported" else []
            labeller = JUDGE if verdict == "cannot_judge" else {"kind": "human", "name": "t"}
            labels.append({"verdict": verdict, "supported_by": support, "labeller": labeller})
        cites = draw(st.lists(st.sampled_from(DOC_IDS), max_size=2, unique=True))
        out.append({"text": "claim", "citations": cites, "labels": labels})
    return out


@st.composite
def _case(draw: st.DrawFn, number: int) -> tuple[dict[str, Any], dict[str, Any]]:
    qid = f"q{number}"
    kinds = ["answerable", "answerable", "unanswerable", "needs_clarification"]
    kind = draw(st.sampled_from(kinds))
    extra: dict[str, Any] = {
        "tags": draw(st.lists(st.sampled_from(["t1", "t2", "version-conflict"]), unique=True)),
        "split": draw(st.sampled_from(["dev", "regression", "holdout"])),
    }
    if draw(st.booleans()):
        extra["user_groups"] = ["support"]
    evidence: list[list[str]] = []
    facts: list[str] = []
    if kind == "answerable":
        ids = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=4, unique=True))
        cut = draw(st.integers(1, len(ids)))
        evidence = [ids[:cut]] + [[i] for i in ids[cut:]]
        facts = ["f1", "f2"][: draw(st.integers(0, 2))]
        if ["d5"] in evidence:  # a group the asker may read none of is an input error
            extra.pop("user_groups", None)
    q = question(qid, kind, evidence=evidence, facts=facts, **extra)
    candidates = draw(st.lists(st.sampled_from(DOC_IDS), max_size=6, unique=True))
    reranked = None
    if candidates and draw(st.booleans()):
        reranked = draw(st.permutations(candidates))[: draw(st.integers(1, len(candidates)))]
    context = None
    if draw(st.booleans()):
        context = draw(st.lists(st.sampled_from(DOC_IDS), max_size=3, unique=True))
    shown = context if context is not None else (reranked or candidates)[:2]
    outcomes = [None, "answered", "answered", "refused", "clarified", "escalated"]
    outcome = draw(st.sampled_from(outcomes))
    claims = draw(_claims(shown)) if outcome == "answered" else None
    verdicts: dict[str, str] = {}
    for fact in facts:
        if outcome == "answered":
            verdicts[fact] = draw(st.sampled_from(["covered", "not_covered", "cannot_judge"]))
    res = result(qid, candidates, context=context, reranked=reranked, outcome=outcome,
                 claims=claims, fact_verdicts=verdicts)
    return q, res


@st.composite
def _world(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    cases = [draw(_case(n)) for n in range(draw(st.integers(1, 8)))]
    return [q for q, _ in cases], [r for _, r in cases]


def _run(questions: list[dict[str, Any]], results: list[dict[str, Any]]) -> RunDiagnosis:
    [run] = diagnose_dataset(make_dataset(_docs(), questions, {"r": results}, k=2),
                             allow_unreviewed=True)
    return run


def _summary(entry: QuestionDiagnosis) -> tuple[Any, ...]:
    return entry.primary, entry.secondary, tuple((f.stage, f.ids, f.why) for f in entry.findings)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(_world(), st.randoms(use_true_random=False))
def test_invariant_to_question_order(world: Any, rnd: Any) -> None:
    questions, results = world
    order = list(range(len(questions)))
    rnd.shuffle(order)
    first = _run(questions, results)
    second = _run([questions[i] for i in order], [results[i] for i in reversed(order)])
    assert {q.question_id: _summary(q) for q in first.questions} == {
        q.question_id: _summary(q) for q in second.questions
    }
    assert first.breakdown == second.breakdown


def _rename(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [_rename(v, mapping) for v in value]
    if isinstance(value, dict):
        return {k: _rename(v, mapping) if k not in ("text", "tags", "split") else v
                for k, v in value.items()}
    return value


@SETTINGS
@given(_world(), st.permutations(list(range(8))))
def test_invariant_to_id_renaming(world: Any, perm: list[int]) -> None:
    questions, results = world
    mapping = {f"d{i}": f"doc-{perm[i]}-{chr(122 - i)}" for i in range(8)}
    mapping |= {q["id"]: f"renamed-{q['id']}" for q in questions}
    first = _run(questions, results)
    docs = _rename(_docs(), mapping)
    [second] = diagnose_dataset(
        make_dataset(docs, _rename(questions, mapping), {"r": _rename(results, mapping)}, k=2),
        allow_unreviewed=True,
    )
    for old, new in zip(first.questions, second.questions, strict=True):
        assert new.question_id == mapping[old.question_id]
        assert (new.primary, new.secondary) == (old.primary, old.secondary)
        assert [(f.stage, f.ids) for f in new.findings] == [
            (f.stage, tuple(mapping.get(i, i) for i in f.ids)) for f in old.findings
        ]
    assert first.breakdown == second.breakdown


def _retrieval_rank(entry: QuestionDiagnosis) -> int:
    """0 = retrieval miss (worst) ... 3 = no retrieval-side loss."""
    stages = set(entry.stages)
    return next((n for n, stage in enumerate(RETRIEVAL) if stage in stages), len(RETRIEVAL))


@SETTINGS
@given(_world(), st.data())
def test_adding_required_evidence_to_context_never_hurts_retrieval(world: Any, data: Any) -> None:
    questions, results = world
    before = _run(questions, results)
    position = data.draw(st.integers(0, len(questions) - 1))
    q, res = questions[position], results[position]
    assume(q["answerability"] == "answerable")
    view_context = [i["id"] for i in res["context"]] if "context" in res else [
        i["id"] for i in (res.get("reranked") or res["candidates"])
    ][:2]
    missing = [g["any_of"] for g in q["required_evidence"]
               if not set(g["any_of"]) & set(view_context)]
    assume(bool(missing))
    group = data.draw(st.sampled_from(missing))
    added = data.draw(st.sampled_from(group))
    changed = copy.deepcopy(results)
    changed[position]["context"] = [{"id": i} for i in [*view_context, added]]
    after = _run(questions, changed)
    old, new = before.questions[position], after.questions[position]
    assert _retrieval_rank(new) >= _retrieval_rank(old)
    for stage in RETRIEVAL:
        old_ids = next((f.ids for f in old.findings if f.stage == stage), ())
        new_ids = next((f.ids for f in new.findings if f.stage == stage), ())
        assert set(new_ids) <= set(old_ids)
    assert sum(len(f.ids) for f in new.findings if f.stage in RETRIEVAL) < sum(
        len(f.ids) for f in old.findings if f.stage in RETRIEVAL
    )
