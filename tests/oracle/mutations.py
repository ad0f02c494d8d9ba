"""Corruptions of one field of a valid generated dataset, each making it invalid.

Each mutation takes the dataset (changed in place) and a draw function, and says what it
broke. `hypothesis.assume` skips datasets where the field to break does not exist.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from hypothesis import assume, strategies as st

from .strategies import Generated

Mutation = Callable[[Generated, st.DrawFn], None]


def _pick(draw: st.DrawFn, items: list[Any]) -> Any:
    assume(items)
    return draw(st.sampled_from(items))


def _results(g: Generated) -> list[dict[str, Any]]:
    return [res for run in g.runs for res in run["results"]]


def _answered(g: Generated) -> list[dict[str, Any]]:
    return [res for res in _results(g) if res.get("claims")]


def _labels(g: Generated) -> list[dict[str, Any]]:
    return [lab for res in _answered(g) for c in res["claims"] for lab in c["labels"]]


def wrong_type_text(g: Generated, draw: st.DrawFn) -> None:
    """A question's text is a number."""
    _pick(draw, g.evalset["questions"])["text"] = 3


def wrong_type_score(g: Generated, draw: st.DrawFn) -> None:
    """A candidate's score is a string ("3" is not a number)."""
    res = _pick(draw, [r for r in _results(g) if r["candidates"]])
    res["candidates"][0]["score"] = "3"


def non_finite_score(g: Generated, draw: st.DrawFn) -> None:
    """A candidate's score is NaN or infinite (the JSON extensions NaN, Infinity)."""
    res = _pick(draw, [r for r in _results(g) if r["candidates"]])
    res["candidates"][-1]["score"] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))


def non_finite_latency(g: Generated, draw: st.DrawFn) -> None:
    """A result's latency or cost is NaN or infinite."""
    field = draw(st.sampled_from(["latency_ms", "cost_usd"]))
    _pick(draw, _results(g))[field] = draw(st.sampled_from([math.nan, math.inf]))


def negative_latency(g: Generated, draw: st.DrawFn) -> None:
    """A result's latency is below 0."""
    _pick(draw, _results(g))["latency_ms"] = -1.0


def unknown_candidate(g: Generated, draw: st.DrawFn) -> None:
    """A candidate ID the snapshot does not know."""
    res = _pick(draw, _results(g))
    res["candidates"].append({"id": "d-missing"})


def unknown_context_item(g: Generated, draw: st.DrawFn) -> None:
    """A recorded context item the snapshot does not know."""
    res = _pick(draw, [r for r in _results(g) if r.get("context") is not None])
    res["context"].append({"id": "nowhere"})


def unknown_evidence(g: Generated, draw: st.DrawFn) -> None:
    """A required evidence alternative the snapshot does not know."""
    q = _pick(draw, [q for q in g.evalset["questions"] if q.get("required_evidence")])
    q["required_evidence"][0]["any_of"].append("d9")


def unknown_fact_label(g: Generated, draw: st.DrawFn) -> None:
    """A fact label for a fact the question does not have."""
    res = _pick(draw, [r for r in _results(g) if r.get("outcome") == "answered"])
    res.setdefault("fact_labels", []).append(
        {"fact_id": "f-none", "verdict": "covered", "labeller": {"kind": "human", "name": "x"}}
    )


def duplicate_document(g: Generated, draw: st.DrawFn) -> None:
    """Two documents with one ID."""
    doc = _pick(draw, g.snapshot["documents"])
    g.snapshot["documents"].append(dict(doc))


def duplicate_question(g: Generated, draw: st.DrawFn) -> None:
    """Two questions with one ID."""
    q = _pick(draw, g.evalset["questions"])
    g.evalset["questions"].append(dict(q))


def duplicate_candidate(g: Generated, draw: st.DrawFn) -> None:
    """One ID twice among a result's candidates."""
    res = _pick(draw, [r for r in _results(g) if r["candidates"]])
    res["candidates"].append(dict(res["candidates"][0]))


def duplicate_result(g: Generated, draw: st.DrawFn) -> None:
    """Two results for one question."""
    run = _pick(draw, g.runs)
    run["results"].append(dict(run["results"][0]))


def missing_result(g: Generated, draw: st.DrawFn) -> None:
    """A question without a result."""
    run = _pick(draw, g.runs)
    run["results"].pop(draw(st.integers(0, len(run["results"]) - 1)))


def missing_required_field(g: Generated, draw: st.DrawFn) -> None:
    """A required field is left out (question answerability, document text or result ID)."""
    where = draw(st.sampled_from(["answerability", "text", "question_id"]))
    if where == "answerability":
        del _pick(draw, g.evalset["questions"])["answerability"]
    elif where == "text":
        del _pick(draw, g.snapshot["documents"])["text"]
    else:
        del _pick(draw, _results(g))["question_id"]


def unknown_field(g: Generated, draw: st.DrawFn) -> None:
    """A field the schema does not have."""
    _pick(draw, _results(g))["confidence"] = 0.5


def empty_id(g: Generated, draw: st.DrawFn) -> None:
    """An empty string ID (document, question or candidate)."""
    where = draw(st.sampled_from(["document", "question", "candidate"]))
    if where == "document":
        _pick(draw, g.snapshot["documents"])["id"] = ""
    elif where == "question":
        _pick(draw, g.evalset["questions"])["id"] = ""
    else:
        res = _pick(draw, _results(g))
        res["candidates"].append({"id": ""})


def out_of_range(g: Generated, draw: st.DrawFn) -> None:
    """A value outside its range: grade 0, k 0, or a chunk ending past its document."""
    where = draw(st.sampled_from(["grade", "k", "chunk"]))
    if where == "grade":
        q = _pick(draw, [q for q in g.evalset["questions"] if q.get("required_evidence")])
        q["required_evidence"][0]["grade"] = 0
    elif where == "k":
        _pick(draw, g.runs)["provenance"]["k"] = 0
    else:
        _pick(draw, g.snapshot["chunks"])["end"] = 500


def bad_enum(g: Generated, draw: st.DrawFn) -> None:
    """An outcome, answerability or status outside its values."""
    where = draw(st.sampled_from(["outcome", "answerability", "status"]))
    if where == "outcome":
        _pick(draw, [r for r in _results(g) if r.get("outcome")])["outcome"] = "abstained"
    elif where == "answerability":
        _pick(draw, g.evalset["questions"])["answerability"] = "maybe"
    else:
        _pick(draw, g.snapshot["documents"])["status"] = "old"


def claims_in_refusal(g: Generated, draw: st.DrawFn) -> None:
    """A refused result with a claim."""
    res = _pick(draw, [r for r in _results(g) if r.get("outcome") in ("refused", "clarified")])
    res["claims"] = [{"text": "x", "labels": [{"verdict": "unsupported",
                                               "labeller": {"kind": "human", "name": "x"}}]}]


def support_outside_context(g: Generated, draw: st.DrawFn) -> None:
    """A supported label naming an ID that was not in the context."""
    label = _pick(draw, [lab for lab in _labels(g) if lab["verdict"] == "supported"])
    label["supported_by"] = [*label["supported_by"], "d-outside"]


def supported_without_support(g: Generated, draw: st.DrawFn) -> None:
    """A label says supported but names no supporting ID."""
    label = _pick(draw, [lab for lab in _labels(g) if lab["verdict"] == "supported"])
    label["supported_by"] = []


def judge_without_prompt(g: Generated, draw: st.DrawFn) -> None:
    """A judge label without its prompt version."""
    label = _pick(draw, _labels(g))
    label["labeller"] = {"kind": "judge", "name": "j"}


def bad_context_hash(g: Generated, draw: st.DrawFn) -> None:
    """A label's context hash that is not sha256 + 64 lowercase hex digits."""
    _pick(draw, _labels(g))["context_hash"] = "sha256:XYZ"


def empty_answer(g: Generated, draw: st.DrawFn) -> None:
    """An outcome with a blank answer."""
    _pick(draw, [r for r in _results(g) if r.get("outcome")])["answer"] = "  "


def unanswerable_with_evidence(g: Generated, draw: st.DrawFn) -> None:
    """An unanswerable question with required evidence."""
    q = _pick(draw, [q for q in g.evalset["questions"] if q["answerability"] == "unanswerable"])
    q["required_evidence"] = [{"any_of": ["d0"]}]


def reranked_not_a_candidate(g: Generated, draw: st.DrawFn) -> None:
    """A reranked item that was not among the candidates."""
    res = _pick(draw, [r for r in _results(g) if r.get("reranked") is not None])
    ids = {c["id"] for c in res["candidates"]}
    extra = [d["id"] for d in g.snapshot["documents"] if d["id"] not in ids]
    assume(extra)
    res["reranked"].append({"id": extra[0]})


MUTATIONS: tuple[Mutation, ...] = (
    wrong_type_text, wrong_type_score, non_finite_score, non_finite_latency, negative_latency,
    unknown_candidate, unknown_context_item, unknown_evidence, unknown_fact_label,
    duplicate_document, duplicate_question, duplicate_candidate, duplicate_result,
    missing_result, missing_required_field, unknown_field, empty_id, out_of_range, bad_enum,
    claims_in_refusal, support_outside_context, supported_without_support,
    judge_without_prompt, bad_context_hash, empty_answer, unanswerable_with_evidence,
    reranked_not_a_candidate,
)


def bool_as_integer(g: Generated, draw: st.DrawFn) -> None:
    """`true` where an integer is expected (a grade, k or a chunk offset)."""
    where = draw(st.sampled_from(["grade", "k", "start"]))
    if where == "grade":
        q = _pick(draw, [q for q in g.evalset["questions"] if q.get("required_evidence")])
        q["required_evidence"][0]["grade"] = True
    elif where == "k":
        _pick(draw, g.runs)["provenance"]["k"] = True
    else:
        _pick(draw, g.snapshot["chunks"])["start"] = False


def float_as_integer(g: Generated, draw: st.DrawFn) -> None:
    """`2.0` where an integer is expected (a grade or k)."""
    if draw(st.booleans()):
        q = _pick(draw, [q for q in g.evalset["questions"] if q.get("required_evidence")])
        q["required_evidence"][0]["grade"] = 2.0
    else:
        _pick(draw, g.runs)["provenance"]["k"] = 2.0


def empty_string_in_list(g: Generated, draw: st.DrawFn) -> None:
    """An empty string among a question's tags or user groups, or a claim's text."""
    where = draw(st.sampled_from(["tags", "user_groups", "claim"]))
    if where == "claim":
        _pick(draw, [c for r in _answered(g) for c in r["claims"]])["text"] = ""
    else:
        q = _pick(draw, g.evalset["questions"])
        q[where] = [*(q.get(where) or []), ""]


def duplicate_fact(g: Generated, draw: st.DrawFn) -> None:
    """Two reference facts with one ID in a question."""
    q = _pick(draw, [q for q in g.evalset["questions"] if q.get("reference_facts")])
    q["reference_facts"].append(dict(q["reference_facts"][0]))


def chunk_text_mismatch(g: Generated, draw: st.DrawFn) -> None:
    """A chunk's stored text differs from its document's span."""
    _pick(draw, g.snapshot["chunks"])["text"] = "not the span"


def bad_supersedes(g: Generated, draw: st.DrawFn) -> None:
    """A document superseding itself or an unknown document."""
    doc = _pick(draw, g.snapshot["documents"])
    doc["supersedes"] = [draw(st.sampled_from([doc["id"], "d-gone"]))]


def bad_header(g: Generated, draw: st.DrawFn) -> None:
    """A file header with another schema version, kind or an unknown field."""
    target = draw(st.sampled_from([g.snapshot, g.evalset, *g.runs]))
    change = draw(st.sampled_from(["schema_version", "kind", "extra"]))
    if change == "schema_version":
        target["schema_version"] = 2
    elif change == "kind":
        target["kind"] = "labels" if target["kind"] != "labels" else "run"
    else:
        target["owner"] = "me"


def wrong_container(g: Generated, draw: st.DrawFn) -> None:
    """A list where an object is expected, or an object where a list is expected."""
    res = _pick(draw, _results(g))
    if draw(st.booleans()):
        res["candidates"] = {"id": "d0"}
    else:
        res["candidates"] = [["d0"]]


def control_character_id(g: Generated, draw: st.DrawFn) -> None:
    """An ID holding a control character (a line break, a tab, CR, ESC, DEL or a C1 one):
    a question's (as its results name it), a tag, a user group, a fact's, a claim's, an
    unknown citation, a labeller's name, a chunk's or a canary's document."""
    bad = draw(st.sampled_from(["sync\ndevices", "a\tb", "x\r", "\x1b[31m", "d\x7f", "d\x85"]))
    where = draw(st.sampled_from(
        ["question", "tag", "user_group", "fact", "claim", "citation", "labeller", "chunk",
         "canary"]
    ))
    questions = g.evalset["questions"]
    if where == "question":
        q = _pick(draw, questions)
        for res in _results(g):
            if res["question_id"] == q["id"]:
                res["question_id"] = bad
        q["id"] = bad
    elif where in ("tag", "user_group"):
        key = where + "s"
        q = _pick(draw, questions)
        q[key] = [*(q.get(key) or []), bad]
    elif where == "fact":
        _pick(draw, [f for q in questions for f in q.get("reference_facts", [])])["id"] = bad
    elif where in ("claim", "citation"):
        claim = _pick(draw, [c for r in _answered(g) for c in r["claims"]])
        if where == "claim":
            claim["id"] = bad
        else:
            claim["citations"] = [*claim.get("citations", []), bad]
    elif where == "labeller":
        lab = _pick(draw, _labels(g))
        lab["labeller"] = {**lab["labeller"], "name": bad}
    elif where == "chunk":
        _pick(draw, g.snapshot["chunks"])["id"] = bad
    else:
        _pick(draw, [q for q in questions if q.get("canary")])["canary"]["document_id"] = bad


MUTATIONS += (
    bool_as_integer, float_as_integer, empty_string_in_list, duplicate_fact,
    chunk_text_mismatch, bad_supersedes, bad_header, wrong_container, control_character_id,
)
